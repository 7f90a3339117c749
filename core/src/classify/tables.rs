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
    // TGI answers a failed generation with 424 (error_type "generation"); Bedrock a stream
    // error event (ModelStreamErrorException). Both are the model server failing, not the request.
    (424, ServerError),
    (422, Unprocessable),
    (429, RateLimited),
    // SambaNova: "Gone: the requested model is no longer available (deprecated or removed)"
    // (docs.sambanova.ai/cloud/api-reference/using-the-api/api-error-codes).
    (410, NotFound),
    (498, Overloaded), // Groq: flex tier capacity_exceeded (console.groq.com/docs/errors)
    (529, Overloaded), // Anthropic overloaded_error
];

/// Provider error `type` / `code` / `status` / `__type` values (lower-cased) -> category.
/// `generic` rows only decide when nothing more specific is said.
pub struct CodeRow {
    /// The provider's value, lower-cased; empty for a fact stated by status and message alone.
    pub code: &'static str,
    /// The category it means.
    pub category: Category,
    /// Whether the row is generic: it decides only when no specific code is present.
    pub generic: bool,
    /// The HTTP status the provider's table gives it (0: none stated).
    pub status: u16,
    /// The provider's message for it, as its table words it ("" when none is stated).
    pub message: &'static str,
}

const fn row(code: &'static str, category: Category) -> CodeRow {
    CodeRow {
        code,
        category,
        generic: false,
        status: 0,
        message: "",
    }
}
const fn generic(code: &'static str, category: Category) -> CodeRow {
    CodeRow {
        code,
        category,
        generic: true,
        status: 0,
        message: "",
    }
}
/// A row of a provider's table with the status and message the table states for the code.
const fn doc(
    status: u16,
    code: &'static str,
    message: &'static str,
    category: Category,
) -> CodeRow {
    CodeRow {
        code,
        category,
        generic: false,
        status,
        message,
    }
}
/// [`doc`] for a generic row (it decides only when nothing more specific is said).
const fn generic_doc(
    status: u16,
    code: &'static str,
    message: &'static str,
    category: Category,
) -> CodeRow {
    CodeRow {
        generic: true,
        ..doc(status, code, message, category)
    }
}
/// A row a provider's table states by status and message alone, with no code of its own: it
/// adds no lookup, and holds the status and phrase rules to what the provider documents.
const fn fact(status: u16, message: &'static str, category: Category) -> CodeRow {
    CodeRow {
        code: "",
        category,
        generic: false,
        status,
        message,
    }
}

/// How a provider wraps its error, so that a table's rows can be replayed in the provider's own
/// shape (`core/tests/provider_tables.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    /// `{"error": {"message", "type", "code"}}` (OpenAI and the many that copy it).
    OpenAi,
    /// `{"type": "error", "error": {"type", "message"}}`.
    Anthropic,
    /// `{"error": {"code": <status>, "message", "status"}}` (google.rpc).
    Google,
    /// `{"__type", "message"}` (AWS JSON protocols).
    Aws,
    /// `{"code", "message"}` at the top (DashScope, SiliconFlow, Dify).
    TopLevel,
    /// `{"Response": {"Error": {"Code", "Message"}, "RequestId"}}`, under HTTP 200 (Tencent
    /// Cloud API 3.0).
    Tencent,
    /// `{"error_code": <n>, "error_msg"}` (Baidu); codes read as `error_code_<n>`.
    Baidu,
    /// `{"base_resp": {"status_code", "status_msg"}}` (MiniMax); codes `base_resp_<n>`.
    MiniMax,
    /// `{"header": {"code", "message"}}` (iFlytek); codes `header_<n>`.
    IFlytek,
    /// `{"errors": [{"code", "message"}]}` (Cloudflare); codes `errors_<n>`.
    Cloudflare,
    /// `{"error": "<message>", "error_type"}` (TGI).
    Tgi,
    /// `{"error_code": "<NAME>", "message"}` (Databricks REST APIs).
    Databricks,
    /// `{"error": "<message>"}` (Ollama), also as a line of a stream already under way.
    ErrorString,
}

/// How much of a table's source was read when its rows were written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// The whole table was read from the cited page or SDK file.
    Whole,
    /// Only part of the page could be read (a search excerpt): the rows are what that part states,
    /// and the rest of the table is not covered.
    Excerpt,
    /// Written before the tables were split per provider; the source is the one cited then.
    Earlier,
}

/// One provider's (or gateway's, or server's) published error codes.
pub struct ProviderTable {
    /// Who answers with these codes.
    pub provider: &'static str,
    /// Where the table is published (a documentation page or an SDK file).
    pub source: &'static str,
    /// How much of the source was read.
    pub read: Read,
    /// The provider's error envelope.
    pub envelope: Envelope,
    /// One fact a row.
    pub rows: &'static [CodeRow],
}

pub mod agent_app_words;
pub mod agents;
pub mod app_words;
pub mod budgets;
pub mod client_bugs;
pub mod client_catalogs;
pub mod clients;
mod cn;
pub mod decode;
pub mod engines;
pub mod go_json;
mod hosts;
mod intl;
pub mod jsonrpc;
pub mod layer_words;
pub mod names;
pub mod nearby;
pub mod output_form;
pub mod plain_words;
pub mod relay_words;
pub mod reply_parsers;
pub mod request_words;
pub mod sdk_runtime_words;
pub mod sessions;
pub mod setup_registry;
pub mod stated_faults;
pub mod stated_refusals;
pub mod throttle_4xx;
pub mod words;
pub mod wrappers;
// (batch 36) Judges', turn-order, abort and malformed-endpoint words.
pub mod judge_and_turn_words;

/// Every provider table, in lookup order: a code's first row wins.
pub fn provider_tables() -> impl Iterator<Item = &'static ProviderTable> {
    [intl::TABLES, hosts::TABLES, cn::TABLES, wrappers::TABLES]
        .into_iter()
        .flatten()
}

/// Every row with a code, of every provider table, in lookup order (the fuzz targets and the
/// property tests draw codes from it).
pub static CODES: AllCodes = AllCodes;

/// [`CODES`]: the rows with a code, gathered once (a `LazyLock` needs Rust 1.80, the MSRV is 1.75).
pub struct AllCodes;

impl std::ops::Deref for AllCodes {
    type Target = [&'static CodeRow];
    fn deref(&self) -> &Self::Target {
        static ROWS: std::sync::OnceLock<Vec<&'static CodeRow>> = std::sync::OnceLock::new();
        ROWS.get_or_init(|| code_rows().filter(|r| !r.code.is_empty()).collect())
    }
}

/// Every code row of every provider table, in lookup order.
pub fn code_rows() -> impl Iterator<Item = &'static CodeRow> {
    provider_tables().flat_map(|t| t.rows.iter())
}

/// The row of a (normalised) code: the first in table order, as a scan of [`code_rows`] finds
/// it; else a compound code's words ([`CODE_WORDS`]); else the row of its family, the part
/// before its first `.` (Tencent's `AuthFailure.SignatureExpire`, DashScope's
/// `Throttling.RateQuota`): a family names the nature its members share.
pub fn code_row(code: &str) -> Option<&'static CodeRow> {
    if let Some(r) = exact_row(code) {
        return Some(r);
    }
    // Only a compound code has words or a family.
    let (words, family) = code.bytes().fold((false, false), |(w, f), b| {
        (w || matches!(b, b'_' | b'-' | b'.'), f || b == b'.')
    });
    if !words {
        return None;
    }
    code_word_row(code)
        .or_else(|| {
            family
                .then(|| code.split_once('.'))
                .flatten()
                .and_then(|(family, _)| exact_row(family))
        })
        .or_else(|| code_prefix_row(code))
}

/// (batch 31a) Leading words that name a family of codes whatever words follow them: Mistral's
/// `invalid_request_message_order` (code 3230, relayed by new-api with no status), beside
/// OpenAI's `invalid_request_error` and a Copilot proxy's `invalid_request_body`, is a request
/// the API refused as written. Generic: a specific row of the same code still wins.
const CODE_PREFIXES: &[CodeRow] = &[generic("invalid_request", BadRequest)];

fn code_prefix_row(code: &str) -> Option<&'static CodeRow> {
    CODE_PREFIXES.iter().find(|r| {
        code.strip_prefix(r.code)
            .is_some_and(|rest| rest.starts_with(['_', '-', '.']))
    })
}

/// The first row of exactly this code. Built once: the rows bucketed by the code's length, a
/// code's first row kept, each with its first eight bytes as one word, so a lookup compares a
/// word per row of its length and the bytes of the one that matches (a binary search over the
/// sorted codes cost more: a `memcmp` call per step).
fn exact_row(code: &str) -> Option<&'static CodeRow> {
    type Bucket = Vec<(u64, &'static CodeRow)>;
    static BY_LEN: std::sync::OnceLock<Vec<Bucket>> = std::sync::OnceLock::new();
    let by_len = BY_LEN.get_or_init(|| {
        let longest = code_rows().map(|r| r.code.len()).max().unwrap_or(0);
        let mut by_len: Vec<Bucket> = vec![Vec::new(); longest + 1];
        for r in code_rows().filter(|r| !r.code.is_empty()) {
            let bucket = &mut by_len[r.code.len()];
            if bucket.iter().all(|(_, o)| o.code != r.code) {
                bucket.push((head_word(r.code.as_bytes()), r));
            }
        }
        by_len
    });
    let c = code.as_bytes();
    let head = head_word(c);
    by_len
        .get(c.len())?
        .iter()
        .find(|(h, r)| *h == head && r.code.as_bytes() == c)
        .map(|(_, r)| *r)
}

/// The first eight bytes of a code as one word (zero-padded).
fn head_word(code: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let n = code.len().min(8);
    word[..n].copy_from_slice(&code[..n]);
    u64::from_le_bytes(word)
}

/// Words that name a code's nature wherever they stand in a compound code
/// (`INSUFFICIENT_G1_CREDITS_BALANCE`, `billing_not_active`, `credit_balance_too_low`): whole
/// words between `_`, `-` or `.`, never fragments. Rows are not generic: they name the nature.
const CODE_WORDS: &[CodeRow] = &[
    // Google's ErrorInfo reason for Gemini Code Assist / Google One AI credits
    // (github.com/su-kaka/gcli2api/issues/416: reason INSUFFICIENT_G1_CREDITS_BALANCE under 429).
    row("balance", PaymentRequired),
    row("credits", PaymentRequired),
    // OpenAI's billing_not_active, billing_hard_limit_reached (platform.openai.com/docs/guides/error-codes).
    row("billing", PaymentRequired),
];

fn code_word_row(code: &str) -> Option<&'static CodeRow> {
    code.split(['_', '-', '.'])
        .find_map(|w| CODE_WORDS.iter().find(|r| r.code == w))
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
    // JavaScript's AbortError (node-fetch "The user aborted a request.", the DOM's abort of a
    // fetch): the caller's AbortController stopped it. A timeout's abort is a TimeoutError.
    ("AbortError", Is(Cancelled)),
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
    // openai-python < 1.0 (openai/error.py): still raised by pinned agents and old LangChain.
    ("openai.error.Timeout", Is(Timeout)),
    ("openai.error.APIConnectionError", Is(Connection)),
    ("openai.error.RateLimitError", Is(RateLimited)),
    ("openai.error.ServiceUnavailableError", Is(ServerError)),
    ("openai.error.TryAgain", Is(ServerError)),
    ("openai.error.AuthenticationError", Is(Unauthorized)),
    ("openai.error.PermissionError", Is(Forbidden)),
    ("openai.error.InvalidRequestError", Is(BadRequest)),
    ("openai.error.InvalidAPIType", Is(Configuration)),
    ("openai.error.APIError", ApiError),
    ("openai.error.OpenAIError", ApiError),
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
    // The same names in any module: the SDKs generated from OpenAPI specs (groq, cerebras,
    // together, fireworks, xai, ...) and the gateways that mirror openai's classes (litellm)
    // name their errors alike. Exact rows above and below win over these.
    (".RateLimitError", Is(RateLimited)),
    (".TooManyRequestsError", Is(RateLimited)),
    (".APITimeoutError", Is(Timeout)),
    (".APIConnectionError", Is(Connection)),
    (".OverloadedError", Is(Overloaded)),
    (".InternalServerError", Is(ServerError)),
    (".ServiceUnavailableError", Is(ServerError)),
    (".AuthenticationError", Is(Unauthorized)),
    (".UnauthorizedError", Is(Unauthorized)),
    (".PermissionDeniedError", Is(Forbidden)),
    (".ForbiddenError", Is(Forbidden)),
    (".NotFoundError", Is(NotFound)),
    (".BadRequestError", Is(BadRequest)),
    (".UnprocessableEntityError", Is(Unprocessable)),
    (".ConflictError", Is(ClientError)),
    (".ContextWindowExceededError", Is(ContextOverflow)),
    (".ContentPolicyViolationError", Is(ContentFiltered)),
    (".BudgetExceededError", Is(PaymentRequired)),
    (".PaymentRequiredError", Is(PaymentRequired)),
    (".APIStatusError", ApiError),
    (".APIError", ApiError),
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
    // (batch 23) anyio's `EndOfStream` (anyio/_core/_exceptions.py: the peer closed the stream
    // before the read finished), which leaks through httpcore unmapped (encode/httpcore#808);
    // httpcore later maps it to `ReadError`: a connection closed early.
    ("anyio.EndOfStream", Is(Connection)),
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
    // Rust transport clients. reqwest has one error type for every
    // failure; core/src/reqwest_support.rs reads its source chain and names, as these
    // pseudo-classes, the permanent facts a transport hint cannot state: a request reqwest could
    // not build (`is_builder()`), hyper-util's "dns error", a TLS link. DNS and TLS are read
    // like Python's socket.gaierror and ssl.SSLError: "name or service not known" and a
    // certificate failure are configuration, "temporary failure in name resolution" a
    // connection fault.
    ("reqwest::Error(builder)", Is(Configuration)),
    ("reqwest::Error(dns)", NetworkOrConfig),
    ("reqwest::Error(tls)", NetworkOrConfig),
    // aiohttp 3.x under its real module names (aiohttp/client_exceptions.py,
    // aiohttp/http_exceptions.py), most specific first: the rows above name the package
    // aliases, which no live exception carries. A response cut mid-body raises ClientPayloadError
    // from ContentLengthError or TransferEncodingError (a reset mid-body too: aiohttp reads it
    // as an early end); a FIN before the answer ServerDisconnectedError; a reset
    // ClientOSError or, from 3.10, ClientConnectionResetError.
    (
        "aiohttp.client_exceptions.ClientConnectorCertificateError",
        Is(Configuration),
    ),
    (
        "aiohttp.client_exceptions.ClientConnectorSSLError",
        NetworkOrConfig,
    ),
    ("aiohttp.client_exceptions.ClientSSLError", NetworkOrConfig),
    (
        "aiohttp.client_exceptions.ClientConnectorDNSError",
        NetworkOrConfig,
    ),
    (
        "aiohttp.client_exceptions.InvalidUrlClientError",
        Is(Configuration),
    ),
    (
        "aiohttp.client_exceptions.NonHttpUrlClientError",
        Is(Configuration),
    ),
    (
        "aiohttp.client_exceptions.ConnectionTimeoutError",
        Is(Timeout),
    ),
    ("aiohttp.client_exceptions.SocketTimeoutError", Is(Timeout)),
    ("aiohttp.client_exceptions.ServerTimeoutError", Is(Timeout)),
    (
        "aiohttp.client_exceptions.ClientPayloadError",
        Is(Connection),
    ),
    (
        "aiohttp.client_exceptions.ServerDisconnectedError",
        Is(Connection),
    ),
    (
        "aiohttp.client_exceptions.ClientConnectionResetError",
        Is(Connection),
    ),
    (
        "aiohttp.client_exceptions.ClientConnectorError",
        Is(Connection),
    ),
    ("aiohttp.client_exceptions.ClientOSError", Is(Connection)),
    (
        "aiohttp.client_exceptions.ClientConnectionError",
        Is(Connection),
    ),
    ("aiohttp.http_exceptions.ContentLengthError", Is(Connection)),
    (
        "aiohttp.http_exceptions.TransferEncodingError",
        Is(Connection),
    ),
    // botocore (botocore/exceptions.py). ClientError's per-code subclasses live in
    // `botocore.errorfactory` and are read by their code; these are the client-side errors.
    ("botocore.exceptions.ReadTimeoutError", Is(Timeout)),
    ("botocore.exceptions.ConnectTimeoutError", Is(Timeout)),
    ("botocore.exceptions.SSLError", NetworkOrConfig),
    (
        "botocore.exceptions.EndpointConnectionError",
        Is(Connection),
    ),
    ("botocore.exceptions.ProxyConnectionError", Is(Connection)),
    ("botocore.exceptions.ConnectionClosedError", Is(Connection)),
    ("botocore.exceptions.ResponseStreamingError", Is(Connection)),
    ("botocore.exceptions.IncompleteReadError", Is(Connection)),
    ("botocore.exceptions.HTTPClientError", Is(Connection)),
    ("botocore.exceptions.ConnectionError", Is(Connection)),
    ("botocore.exceptions.NoCredentialsError", Is(Configuration)),
    (
        "botocore.exceptions.PartialCredentialsError",
        Is(Configuration),
    ),
    ("botocore.exceptions.NoRegionError", Is(Configuration)),
    ("botocore.exceptions.ProfileNotFound", Is(Configuration)),
    ("botocore.exceptions.UnknownServiceError", Is(Configuration)),
    ("botocore.exceptions.InvalidRegionError", Is(Configuration)),
    (
        "botocore.exceptions.UnauthorizedSSOTokenError",
        Is(Unauthorized),
    ),
    // Raised before sending: the request's parameters do not fit the service model.
    ("botocore.exceptions.ParamValidationError", Is(Programming)),
    ("botocore.exceptions.ClientError", ApiError),
    // google-api-core (google/api_core/exceptions.py; `code` is the HTTP status)
    (
        "google.api_core.exceptions.ResourceExhausted",
        Is(RateLimited),
    ),
    (
        "google.api_core.exceptions.TooManyRequests",
        Is(RateLimited),
    ),
    (
        "google.api_core.exceptions.ServiceUnavailable",
        Is(ServerError),
    ),
    (
        "google.api_core.exceptions.InternalServerError",
        Is(ServerError),
    ),
    ("google.api_core.exceptions.BadGateway", Is(ServerError)),
    ("google.api_core.exceptions.DeadlineExceeded", Is(Timeout)),
    ("google.api_core.exceptions.GatewayTimeout", Is(Timeout)),
    (
        "google.api_core.exceptions.Unauthenticated",
        Is(Unauthorized),
    ),
    ("google.api_core.exceptions.Unauthorized", Is(Unauthorized)),
    ("google.api_core.exceptions.PermissionDenied", Is(Forbidden)),
    ("google.api_core.exceptions.Forbidden", Is(Forbidden)),
    ("google.api_core.exceptions.NotFound", Is(NotFound)),
    ("google.api_core.exceptions.InvalidArgument", Is(BadRequest)),
    (
        "google.api_core.exceptions.FailedPrecondition",
        Is(BadRequest),
    ),
    ("google.api_core.exceptions.OutOfRange", Is(BadRequest)),
    ("google.api_core.exceptions.BadRequest", Is(BadRequest)),
    ("google.api_core.exceptions.GoogleAPICallError", ApiError),
    // google-genai (google/genai/errors.py): ClientError 4xx, ServerError 5xx; the rest are
    // raised locally around function calling.
    ("google.genai.errors.ServerError", Is(ServerError)),
    (
        "google.genai.errors.UnknownApiResponseError",
        Is(InvalidResponse),
    ),
    (
        "google.genai.errors.UnsupportedFunctionError",
        Is(Programming),
    ),
    (
        "google.genai.errors.UnknownFunctionCallArgumentError",
        Is(Programming),
    ),
    (
        "google.genai.errors.FunctionInvocationError",
        Is(Programming),
    ),
    ("google.genai.errors.APIError", ApiError),
    // mistralai 1.x/2.x (Speakeasy: mistralai/client/errors/*.py, mistralai/models/*.py in 1.x)
    (
        "mistralai.client.errors.httpvalidationerror.HTTPValidationError",
        Is(Unprocessable),
    ),
    (
        "mistralai.models.httpvalidationerror.HTTPValidationError",
        Is(Unprocessable),
    ),
    (
        "mistralai.client.errors.no_response_error.NoResponseError",
        Is(Connection),
    ),
    (
        "mistralai.models.no_response_error.NoResponseError",
        Is(Connection),
    ),
    (
        "mistralai.client.errors.responsevalidationerror.ResponseValidationError",
        Is(InvalidResponse),
    ),
    (
        "mistralai.models.responsevalidationerror.ResponseValidationError",
        Is(InvalidResponse),
    ),
    (
        "mistralai.client.errors.mistralerror.MistralError",
        ApiError,
    ),
    ("mistralai.models.mistralerror.MistralError", ApiError),
    ("mistralai.client.errors.sdkerror.SDKError", ApiError),
    ("mistralai.models.sdkerror.SDKError", ApiError),
    // groq-python (src/groq/_exceptions.py, the openai-python hierarchy)
    ("groq.APITimeoutError", Is(Timeout)),
    ("groq.APIConnectionError", Is(Connection)),
    ("groq.RateLimitError", Is(RateLimited)),
    ("groq.InternalServerError", Is(ServerError)),
    ("groq.AuthenticationError", Is(Unauthorized)),
    ("groq.PermissionDeniedError", Is(Forbidden)),
    ("groq.NotFoundError", Is(NotFound)),
    ("groq.BadRequestError", Is(BadRequest)),
    ("groq.UnprocessableEntityError", Is(Unprocessable)),
    ("groq.ConflictError", Is(ClientError)),
    ("groq.APIResponseValidationError", Is(InvalidResponse)),
    ("groq.APIError", ApiError),
    ("groq.GroqError", ApiError),
    // cohere 5.x+ (Fern: src/cohere/errors/*.py, src/cohere/core/api_error.py)
    (
        "cohere.errors.too_many_requests_error.TooManyRequestsError",
        Is(RateLimited),
    ),
    (
        "cohere.errors.service_unavailable_error.ServiceUnavailableError",
        Is(ServerError),
    ),
    (
        "cohere.errors.internal_server_error.InternalServerError",
        Is(ServerError),
    ),
    (
        "cohere.errors.gateway_timeout_error.GatewayTimeoutError",
        Is(Timeout),
    ),
    (
        "cohere.errors.unauthorized_error.UnauthorizedError",
        Is(Unauthorized),
    ),
    (
        "cohere.errors.invalid_token_error.InvalidTokenError",
        Is(Unauthorized),
    ),
    (
        "cohere.errors.forbidden_error.ForbiddenError",
        Is(Forbidden),
    ),
    ("cohere.errors.not_found_error.NotFoundError", Is(NotFound)),
    (
        "cohere.errors.bad_request_error.BadRequestError",
        Is(BadRequest),
    ),
    (
        "cohere.errors.unprocessable_entity_error.UnprocessableEntityError",
        Is(Unprocessable),
    ),
    ("cohere.core.api_error.ApiError", ApiError),
    // litellm (litellm/exceptions.py): subclasses of openai's classes, more specific first
    (
        "litellm.exceptions.ContextWindowExceededError",
        Is(ContextOverflow),
    ),
    (
        "litellm.exceptions.ContentPolicyViolationError",
        Is(ContentFiltered),
    ),
    (
        "litellm.exceptions.PaymentRequiredError",
        Is(PaymentRequired),
    ),
    (
        "litellm.exceptions.BudgetExceededError",
        Is(PaymentRequired),
    ),
    (
        "litellm.exceptions.ServiceUnavailableError",
        Is(ServerError),
    ),
    ("litellm.exceptions.BadGatewayError", Is(ServerError)),
    ("litellm.exceptions.InternalServerError", Is(ServerError)),
    ("litellm.exceptions.Timeout", Is(Timeout)),
    ("litellm.exceptions.APIConnectionError", Is(Connection)),
    ("litellm.exceptions.RateLimitError", Is(RateLimited)),
    ("litellm.exceptions.AuthenticationError", Is(Unauthorized)),
    ("litellm.exceptions.PermissionDeniedError", Is(Forbidden)),
    ("litellm.exceptions.NotFoundError", Is(NotFound)),
    (
        "litellm.exceptions.UnprocessableEntityError",
        Is(Unprocessable),
    ),
    ("litellm.exceptions.BadRequestError", Is(BadRequest)),
    ("litellm.exceptions.APIError", ApiError),
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
    // Google SDKs: a blocked prompt or a candidate stopped by a filter arrives as an exception
    // (google-generativeai types/generation_types.py).
    (
        "google.generativeai.types.generation_types.BlockedPromptException",
        Is(ContentFiltered),
    ),
    (
        "google.generativeai.types.generation_types.StopCandidateException",
        Is(ContentFiltered),
    ),
    // LiteLLM's router, in process: every deployment is cooling down after rate limits
    // (litellm/types/router.py; ValueError subclasses).
    ("litellm.types.router.RouterRateLimitError", Is(RateLimited)),
    (
        "litellm.types.router.RouterRateLimitErrorBasic",
        Is(RateLimited),
    ),
    // Raised when a stream fails after it started, so the router can fall back
    // (litellm/exceptions.py; a ServiceUnavailableError subclass).
    (
        "litellm.exceptions.MidStreamFallbackError",
        Is(StreamInterrupted),
    ),
    // retry-core's own: a stream that ended without its stop reason (`stream_end::PYTHON_CLASS`
    // and `RUBY_CLASS`, whose test classifies them; named here as text so that the tables do not
    // depend on the module that uses them).
    ("retry_core.StreamIncomplete", Is(StreamInterrupted)),
    ("RetryCore::StreamIncomplete", Is(StreamInterrupted)),
    // vLLM in process: the engine core died (vllm/v1/engine/exceptions.py).
    ("vllm.v1.engine.exceptions.EngineDeadError", Is(ServerError)),
    // Output parsers of agent frameworks (issue 20): the model answered, the answer did not
    // parse (langchain_core/exceptions.py, ragas/prompt/pydantic_prompt.py,
    // magentic/chat_model/base.py, instructor/core/exceptions.py).
    (".OutputParserException", Is(Validation)),
    (".RagasOutputParserException", Is(Validation)),
    (".StructuredOutputError", Is(Validation)),
    (".InstructorRetryException", Is(Validation)),
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
    ("RubyLLM::UnsupportedAttachmentError", Is(BadRequest)), // the model cannot take this attachment
    // 1.13.0 on (error.rb): a prompt file render_prompt cannot find; a tool choice that is
    // neither a mode nor a registered tool.
    ("RubyLLM::PromptNotFoundError", Is(Configuration)),
    ("RubyLLM::InvalidToolChoiceError", Is(Programming)),
    // main after 1.16.0 (error.rb at fb5a49bf, unreleased): Chat#cancel! raises CancelledError
    // (< StandardError); ToolCallParseError (< Error) is tool-call JSON the provider cut short;
    // PendingToolCallsError is a user message staged over unanswered tool calls;
    // UnsupportedServerToolError a server tool the provider has no support for.
    ("RubyLLM::CancelledError", Is(Cancelled)),
    ("RubyLLM::ToolCallParseError", Is(InvalidResponse)),
    // A pending tool call is the orphan a provider would answer with a 400, caught before
    // sending: pruning the unanswered calls is the recovery.
    ("RubyLLM::PendingToolCallsError", Is(OrphanToolCalls)),
    ("RubyLLM::UnsupportedServerToolError", Is(Configuration)),
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
    // What Net::HTTPResponse#value raises (net/http/exceptions.rb, net/http/response.rb): the
    // response's status decides first; these only stand in when it cannot be read. 5xx:
    // HTTPFatalError; 4xx: HTTPClientException (HTTPServerException before Ruby 2.6, an alias
    // since); 3xx: HTTPRetriableError, a redirect nobody followed (a wrong endpoint URL).
    ("Net::HTTPFatalError", Is(ServerError)),
    ("Net::HTTPClientException", Is(ClientError)),
    ("Net::HTTPServerException", Is(ClientError)),
    ("Net::HTTPRetriableError", Is(Configuration)),
    // The json-schema gem's JSON::Validator.validate! (lib/json-schema/errors/
    // validation_error.rb): the model's output failed the schema. (json_schemer returns its
    // errors rather than raising; RubyLLM has no validation error class in 1.9-1.16 or main.)
    ("JSON::Schema::ValidationError", Is(Validation)),
    ("JSON::ParserError", Is(InvalidResponse)),
    ("SocketError", NetworkOrConfig),
    ("OpenSSL::SSL::SSLError", NetworkOrConfig),
    ("URI::InvalidURIError", Is(Configuration)),
    ("KeyError", Is(Unknown)),
    ("IndexError", Is(Programming)),
    ("NoMethodError", Is(Programming)),
    ("ArgumentError", Is(Programming)),
    ("ZeroDivisionError", Is(Programming)),
    ("FrozenError", Is(Programming)),
    // (batch 19) The JS SDKs' own abort (openai-node and anthropic-sdk-typescript
    // `APIUserAbortError`, "Request was aborted."): the caller aborted the request or stream.
    (".APIUserAbortError", Is(Cancelled)),
    // (batch 20) The decoders' own classes for a reply of the wrong shape, as a binding or a
    // logged chain names them (`tables::decode::OTHER_LANGUAGES` has their words): Jackson's
    // `com.fasterxml.jackson.databind.exc` (MismatchedInputException,
    // UnrecognizedPropertyException), System.Text.Json's JsonException, kotlinx.serialization's
    // JsonDecodingException and MissingFieldException, Swift's DecodingError, the Vercel AI
    // SDK's AI_NoOutputGeneratedError ("No output generated") and its older
    // AI_NoTextGeneratedError.
    (".MismatchedInputException", Is(InvalidResponse)),
    (".UnrecognizedPropertyException", Is(InvalidResponse)),
    ("System.Text.Json.JsonException", Is(InvalidResponse)),
    (".JsonDecodingException", Is(InvalidResponse)),
    (".MissingFieldException", Is(InvalidResponse)),
    ("Swift.DecodingError", Is(InvalidResponse)),
    ("AI_NoOutputGeneratedError", Is(InvalidResponse)),
    ("AI_NoTextGeneratedError", Is(InvalidResponse)),
    // (batch 20) SWE-agent's budgets of its own (sweagent/exceptions.py: `CostLimitExceededError`
    // and its `InstanceCostLimitExceededError`, `TotalCostLimitExceededError`,
    // `InstanceCallLimitExceededError`): the run's money or calls are spent; no retry refills
    // them.
    ("CostLimitExceededError", Is(PaymentRequired)),
    (".CostLimitExceededError", Is(PaymentRequired)),
    ("InstanceCostLimitExceededError", Is(PaymentRequired)),
    (".InstanceCostLimitExceededError", Is(PaymentRequired)),
    ("TotalCostLimitExceededError", Is(PaymentRequired)),
    (".TotalCostLimitExceededError", Is(PaymentRequired)),
    ("InstanceCallLimitExceededError", Is(PaymentRequired)),
    (".InstanceCallLimitExceededError", Is(PaymentRequired)),
    // (batch 22) The model's answer failed the framework's own parser (CONTRACT §2
    // validation): DSPy's `AdapterParseError` ("Adapter ChatAdapter failed to parse the LM
    // response", dspy/utils/exceptions.py), LangChain4j's `OutputParsingException`
    // (dev.langchain4j.service.output).
    (".AdapterParseError", Is(Validation)),
    ("AdapterParseError", Is(Validation)),
    (".OutputParsingException", Is(Validation)),
    // The AI SDK's `TypeValidationError` (packages/provider/src/errors/type-validation-error.ts,
    // "Type validation failed: Value: ..."): a reply or chunk not of the provider's schema.
    ("AI_TypeValidationError", Is(InvalidResponse)),
    // (batch 24) openai-agents' `ModelBehaviorError` (src/agents/exceptions.py: "the model
    // does something unexpected, e.g. calling a tool that doesn't exist, or providing malformed
    // JSON"; the JS SDK's class of the same name): the model's output.
    (".ModelBehaviorError", Is(Validation)),
    ("ModelBehaviorError", Is(Validation)),
    // smolagents' `AgentParsingError` (src/smolagents/utils.py): the model's output could not
    // be parsed into code or a tool call.
    (".AgentParsingError", Is(Validation)),
    ("AgentParsingError", Is(Validation)),
    // (batch 24) The JVM's other JSON decoders, as Java and Kotlin SDKs chain them: Gson's
    // `com.google.gson.JsonSyntaxException` / `JsonParseException` / `stream.
    // MalformedJsonException` ("java.io.EOFException: End of input at line 1 column 2 path $."
    // when a reply or stream chunk is cut or not JSON), Moshi's `JsonDataException` and
    // `JsonEncodingException`. The decoder's class names the fault; an EOF in its words is the
    // reply ending early under the parser, not a dropped socket.
    ("com.google.gson.JsonSyntaxException", Is(InvalidResponse)),
    ("com.google.gson.JsonParseException", Is(InvalidResponse)),
    (
        "com.google.gson.stream.MalformedJsonException",
        Is(InvalidResponse),
    ),
    ("com.squareup.moshi.JsonDataException", Is(InvalidResponse)),
    (
        "com.squareup.moshi.JsonEncodingException",
        Is(InvalidResponse),
    ),
    // (batch 32a) replicate-python raises `ModelError` when a prediction ends `failed` on
    // Replicate's side (replicate/exceptions.py; the maintainers advise rerunning, and reruns
    // of the same small prompt pass, replicate-python#306): the hosted run's fault, retried at
    // the cost of one prediction. The base `ReplicateError` decides nothing by itself.
    ("replicate.exceptions.ModelError", Is(ServerError)),
    // (client catalogs) Clients' own classes for a URL that cannot be used, a peer whose
    // certificate names another host, and a reply that is not the JSON asked for: CPython
    // Lib/http/client.py `InvalidURL` ("nonnumeric port: ..."), OkHttp's
    // `SSLPeerUnverifiedException` ("Hostname x not verified"), aiohttp client_exceptions.py
    // `ContentTypeError` ("Attempt to decode JSON with unexpected mimetype"), Jackson's
    // `JsonEOFException` ("Unexpected end-of-input: expected close marker for Object").
    ("http.client.InvalidURL", Is(Configuration)),
    (
        "javax.net.ssl.SSLPeerUnverifiedException",
        Is(Configuration),
    ),
    (
        "aiohttp.client_exceptions.ContentTypeError",
        Is(InvalidResponse),
    ),
    (
        "com.fasterxml.jackson.core.io.JsonEOFException",
        Is(InvalidResponse),
    ),
    ("System.UriFormatException", Is(Configuration)),
    // urllib3's URL parser (urllib3/exceptions.py `LocationParseError`, "Failed to parse:
    // <url>") and requests' header check (requests/exceptions.py `InvalidHeader`, a key with a
    // newline in it): the caller's set-up, never the server's reply.
    ("urllib3.exceptions.LocationParseError", Is(Configuration)),
    ("requests.exceptions.InvalidHeader", Is(Configuration)),
];

/// One phrase of a table, matched as whole words in lower-cased text (links blanked out).
pub struct Phrase {
    /// The phrase, lower-case.
    pub text: &'static str,
    /// The category it is evidence of.
    pub category: Category,
    /// The phrase states the failure's nature outright, so it beats a transient status or a
    /// transient provider code ([`STATED`] categories only): a self-hosted server's 500 that
    /// says "maximum context length", credits gone under a 429's `rate_limit_error`.
    pub stated: bool,
}

/// A phrase that refines a permanent status or stands alone.
pub(crate) const fn said(text: &'static str, category: Category) -> Phrase {
    Phrase {
        text,
        category,
        stated: false,
    }
}

/// A phrase that also overrules a transient status or code.
pub(crate) const fn stated(text: &'static str, category: Category) -> Phrase {
    Phrase {
        text,
        category,
        stated: true,
    }
}

/// The permanent natures a body may state over a transient status or code: retrying them only
/// spends money or quota on a request that cannot succeed.
pub const STATED: &[Category] = &[
    Configuration,
    BadRequest,
    ClientError,
    OrphanToolCalls,
    ContextOverflow,
    PaymentRequired,
    ContentFiltered,
];

/// (batch 18) Natures only a phrase may state over a transient status or class, never a code:
/// credentials a person must renew ("Reauthentication is needed. Please run `gcloud auth
/// application-default login`", google-auth's RefreshError under LiteLLM's
/// InternalServerError). (A provider's code mapped to auth under a 500 stays the 500's.)
/// (batch 22) `NotFound` too: a relay's words that no channel serves the model (new-api's 503
/// "No available channels for model X"); no code maps to it under a transient status.
/// (batch 31a) `InvalidResponse` too: a finish reason that says the model's own output broke
/// the protocol (`output_form`'s stated rows: "The function call generated by the model is
/// invalid" under EPAM DIAL's 500), the same reply on the next try of the same context.
pub const STATED_IN_WORDS: &[Category] = &[Unauthorized, NotFound, InvalidResponse];

/// Phrases in a message or body. Order is priority: specific permanent meanings first, so
/// "Invalid API key for connection" is unauthorized.
pub const PERMANENT_PHRASES: &[Phrase] = &[
    // A model container that rejected the input, relayed by Bedrock as a 424
    // ModelErrorException: "Received client error (400) from primary with message ...".
    stated("received client error", ClientError),
    // Tool pairing (SwarmSDK's detector patterns, plus OpenAI's wording)
    stated("tool_use ids were found without", OrphanToolCalls),
    stated("without `tool_result`", OrphanToolCalls),
    stated("without tool_result", OrphanToolCalls),
    stated("corresponding tool_result", OrphanToolCalls),
    stated("corresponding `tool_result`", OrphanToolCalls),
    said("must immediately follow", OrphanToolCalls),
    stated("unexpected `tool_use_id`", OrphanToolCalls),
    stated("unexpected tool_use_id", OrphanToolCalls),
    stated("must be followed by tool messages", OrphanToolCalls),
    stated("did not have response messages", OrphanToolCalls),
    stated(
        "no tool call found for function call output",
        OrphanToolCalls,
    ), // OpenAI Responses API
    // (batch 15) The Responses API's other half: "No tool output found for function call <id>."
    stated("no tool output found for function call", OrphanToolCalls),
    stated("preceding message with 'tool_calls'", OrphanToolCalls),
    stated("preceeding message with 'tool_calls'", OrphanToolCalls), // sic: OpenAI's spelling
    said("function response turn", OrphanToolCalls),                 // Gemini
    // Gemini 400: "Please ensure that the number of function response parts is equal to the
    // number of function call parts of the function call turn."
    stated(
        "number of function response parts is equal to",
        OrphanToolCalls,
    ),
    said("toolresult blocks", OrphanToolCalls), // Bedrock Converse
    said("tool_call_id", OrphanToolCalls),
    said("tool_use_id", OrphanToolCalls),
    // (A bare "tool_result" is no pairing error: "tool_result content invalid" is a bad
    // block, and pruning would not fix it.)
    // Mistral 400 invalid_request_error, code 3230 (docs.mistral.ai/capabilities/function_calling;
    // mistralai/client-python#234): a call without its response.
    stated(
        "not the same number of function calls and responses",
        OrphanToolCalls,
    ),
    // Anthropic (also through Bedrock): "Messages following `tool_use` blocks must begin with a
    // matching number of `tool_result` blocks."
    stated("matching number of `tool_result`", OrphanToolCalls),
    stated("matching number of tool_result", OrphanToolCalls),
    // OpenAI's parameter validation names the parameter: "Invalid 'input[261].call_id': string
    // too long", "Invalid 'messages[3].content'". A gateway's 500 around it is still that 400.
    stated("invalid '", BadRequest),
    // A max_tokens above the model's output cap is a bad parameter, not an over-long prompt
    // (Cohere: "too many tokens: max tokens must be less than or equal to 4096").
    said("max tokens must be less than or equal to", BadRequest),
    // Context overflow (RubyLLM's and LiteLLM's context patterns; the servers' own wordings)
    stated("context_length_exceeded", ContextOverflow),
    stated("maximum context length", ContextOverflow), // OpenAI, vLLM
    // Claude Code: "Claude's response exceeded the 32000 output token maximum" (the answer
    // outgrew the output cap; the same request outgrows it again).
    said("output token maximum", ContextOverflow),
    stated("exceeds the available context size", ContextOverflow), // llama.cpp server
    stated("too long to fit into the model", ContextOverflow),     // vLLM
    stated("context length exceeded", ContextOverflow),            // CLOVA Studio 40003
    // vLLM's answer when the prompt leaves no room for output: "max_tokens must be at least 1,
    // got -1203" (developer.mittwald.de's AI hosting errors page reads it as the context exceeded).
    stated("must be at least 1, got -", ContextOverflow),
    said("text too long", ContextOverflow), // CLOVA Studio 40003 (older revision)
    stated("tokens + `max_new_tokens` must be <=", ContextOverflow), // TGI validation
    stated("context size has been exceeded", ContextOverflow), // llama.cpp server
    stated("longer than the maximum model length", ContextOverflow), // vLLM
    said("expected maxlength", ContextOverflow), // Bedrock: Malformed input request
    said(
        "member must have length less than or equal to",
        ContextOverflow,
    ), // AWS: body over the size limit
    stated("`inputs` must have less than", ContextOverflow), // TGI validation
    said("context length", ContextOverflow),
    said("context window", ContextOverflow),
    stated("prompt is too long", ContextOverflow), // Anthropic
    said("request entity too large", ContextOverflow), // 413's reason phrase as clients print it
    stated("input is too long", ContextOverflow),  // Bedrock
    said("too many tokens", ContextOverflow),
    // OpenAI and Groq 413/429 "Request too large for <model> ... on tokens per min": the request
    // alone exceeds the limit, so no wait can make it pass.
    stated("request too large", ContextOverflow),
    stated(
        "must be reduced in order to run successfully",
        ContextOverflow,
    ),
    stated("reduce the length of the messages", ContextOverflow),
    stated("exceeds the context", ContextOverflow),
    stated("exceed context limit", ContextOverflow), // Anthropic: input length and `max_tokens` exceed context limit
    stated("input token count", ContextOverflow), // Gemini: exceeds the maximum number of tokens allowed
    stated("exceeds the maximum number of tokens", ContextOverflow),
    stated("input tokens exceed the configured limit", ContextOverflow), // OpenAI gpt-5 family
    stated("maximum prompt length", ContextOverflow),                    // xAI
    stated("input token length too long", ContextOverflow),              // Moonshot/Kimi 400
    // SiliconFlow 20015: "length of prompt_tokens (68957) must be less than max_seq_len (65536)"
    stated("must be less than max_seq_len", ContextOverflow),
    stated("exceeded model token limit", ContextOverflow), // Moonshot/Kimi 400
    // (batch 15) Zhipu's "Prompt exceeds max length"; ChatGPT's 413 "The message you submitted
    // was too long" (code message_length_exceeds_limit).
    stated("prompt exceeds", ContextOverflow),
    stated("message you submitted was too long", ContextOverflow),
    stated("message_length_exceeds_limit", ContextOverflow),
    stated("range of input length should be", ContextOverflow), // DashScope 400 InvalidParameter
    stated("prompt 超长", ContextOverflow),                     // Zhipu 1261
    stated("上下文长度", ContextOverflow),                      // context length
    stated("超过模型最大", ContextOverflow),                    // exceeds the model's maximum
    stated("超出最大长度", ContextOverflow),
    // Billing: money or credits are gone; waiting does not bring them back.
    stated("insufficient_quota", PaymentRequired),
    said(
        "exceeded your current quota, please check your plan and billing details",
        PaymentRequired,
    ),
    said("check your plan and billing details", PaymentRequired),
    said("exceeded your current quota", PaymentRequired),
    said("budget exhausted", PaymentRequired), // Portkey 412 (portkey.ai/docs/api-reference/inference-api/error-codes)
    // The same in Chinese (iFlytek's OpenAI-compatible table: 429 超出当前配额，请检查计划和计费详情).
    said("超出当前配额", PaymentRequired),
    said("请检查计划和计费详情", PaymentRequired),
    stated("credit balance is too low", PaymentRequired), // Anthropic
    stated("insufficient credits", PaymentRequired),      // OpenRouter
    stated("insufficient credit", PaymentRequired), // Nscale 429, Replicate 402: "Insufficient credit"
    stated("insufficient balance", PaymentRequired), // DeepSeek
    stated("out of credits", PaymentRequired),
    stated("used all available credits", PaymentRequired), // xAI
    stated("purchase more credits", PaymentRequired),
    stated("requires more credits", PaymentRequired), // OpenRouter: ... but can only afford 0
    // Anthropic 429 rate_limit_error: "Extra usage is required for long context requests",
    // later "Usage credits are required for long context requests": a paid gate, not a limit.
    stated("extra usage is required", PaymentRequired),
    stated("run out of credits", PaymentRequired), // xAI
    stated("prepayment credits are depleted", PaymentRequired), // Gemini 429 RESOURCE_EXHAUSTED
    stated("positive balance", PaymentRequired),   // Together: tier and balance gate
    stated("buying credits", PaymentRequired),
    // Cohere trial keys: "limited to 1000 API calls / month" waits a month; the same key's
    // "40 API calls / minute" is an ordinary rate limit.
    stated("api calls / month", PaymentRequired),
    stated("have any credits", PaymentRequired), // xAI: team doesn't have any credits or licenses
    stated("spending-limit", PaymentRequired),   // xAI: personal-team-blocked:spending-limit
    stated("usage credits are required", PaymentRequired),
    stated("can only afford", PaymentRequired),
    // (batch 14) MiniMax's 1008 type, Tencent Cloud's InvalidAccount.InsufficientBalance and
    // UnsupportedOperation.PkgExhausted ("The resource pack allowance has been exhausted"),
    // one-api/new-api's own balance checks ("token quota is not enough", "preConsumedQuota"),
    // Copilot's "You have no quota".
    stated("insufficient_balance_error", PaymentRequired),
    stated("insufficientbalance", PaymentRequired),
    stated("pkgexhausted", PaymentRequired),
    stated("allowance has been exhausted", PaymentRequired),
    stated("quota is not enough", PaymentRequired),
    stated("preconsumedquota", PaymentRequired),
    said("have no quota", PaymentRequired),
    // Gemini: "Quota exceeded for metric: ..._free_tier_requests, limit: 0": a quota of zero
    // never refills; the project needs billing (or another model).
    stated("limit: 0", PaymentRequired),
    // The same zero in a google.rpc.ErrorInfo's metadata, raw and as a JSON string quoted
    // inside another (a limit of 0 for the region: the quota never refills).
    stated("quota_limit_value\":\"0\"", PaymentRequired),
    stated("quota_limit_value\\\":\\\"0\\\"", PaymentRequired),
    stated("monthly spending limit", PaymentRequired), // xAI
    stated("spending limit", PaymentRequired),
    stated("spend limit", PaymentRequired),
    // MiniMax 2056 "usage limit exceeded": the M Plan's 5-hour and weekly windows
    // (platform.minimax.io/docs/m-plan/usage-rules.md); no retry budget outlasts them.
    stated("usage limit exceeded", PaymentRequired),
    // A plan's quota for its billing period (Kimi Code 403: "You've reached your usage limit
    // for this billing cycle. Your quota will be refreshed in the next cycle.").
    stated("billing cycle", PaymentRequired),
    stated("api usage limits", PaymentRequired), // Anthropic: "You have reached your specified API usage limits"
    stated("budget has been exceeded", PaymentRequired), // LiteLLM BudgetExceededError
    stated("exceeded budget", PaymentRequired),
    stated("billing hard limit", PaymentRequired),
    // Balance and arrears in the providers' own words (one fact per row, the provider that
    // says it in brackets; they recur across relays and gateways):
    stated("insufficient_balance", PaymentRequired), // MiniMax via ModelScope: insufficient_balance_error
    stated("insufficient account balance", PaymentRequired), // sub2api relays
    stated("balance is insufficient", PaymentRequired), // SiliconFlow 30011
    stated("requires paid balance", PaymentRequired), // SiliconFlow 30011
    stated("no resource package", PaymentRequired),  // z.ai 1113 (English)
    stated("please recharge", PaymentRequired),      // z.ai 1113, Moonshot
    stated("recharge your account", PaymentRequired), // Moonshot: suspended due to insufficient balance
    stated("overdue balance", PaymentRequired),       // Volcengine Ark AccountOverdueError
    stated("overdue payment", PaymentRequired),
    stated("in good standing", PaymentRequired), // DashScope Arrearage: make sure your account is in good standing
    stated("arrearage", PaymentRequired),        // DashScope code, as text
    stated("accountoverdueerror", PaymentRequired), // Volcengine Ark code, as text
    stated("exceeded current quota", PaymentRequired), // Moonshot exceeded_current_quota_error
    stated("exceeded_current_quota_error", PaymentRequired),
    stated("insufficient funds", PaymentRequired),
    stated("insufficient_user_quota", PaymentRequired), // one-api / new-api
    stated("insufficient user quota", PaymentRequired),
    stated("free allocated quota exceeded", PaymentRequired), // DashScope: the free quota is gone
    stated("monthly included credits", PaymentRequired), // Hugging Face Inference Providers 402
    stated("daily free allocation", PaymentRequired), // Cloudflare Workers AI (10,000 neurons a day)
    // A quota of a day or more, in words, even without a status (CONTRACT §2):
    stated("daily quota", PaymentRequired), // gemini-cli: You have exhausted your daily quota
    stated("daily limit", PaymentRequired),
    stated("daily request limit", PaymentRequired), // Baidu error_code 17
    stated("monthly quota", PaymentRequired),
    stated("monthly limit", PaymentRequired),
    stated("今日调用次数", PaymentRequired), // Zhipu 1304
    stated("余额不足", PaymentRequired), // balance insufficient (Zhipu, DeepSeek, MiniMax, SiliconFlow)
    stated("欠费", PaymentRequired),     // in arrears (Zhipu 1113, Volcengine, Alibaba)
    stated("请充值", PaymentRequired),   // please recharge
    stated("充值后", PaymentRequired),   // after recharging (Zhipu: 请充值后重试)
    stated("额度不足", PaymentRequired), // quota insufficient (one-api: 用户额度不足)
    stated("token不足", PaymentRequired), // tokens used up (iFlytek 10016: token不足)
    said("guardrail checks failed", ContentFiltered), // Portkey 446: the request was denied
    stated("额度已用尽", PaymentRequired), // quota used up (one-api: 该令牌额度已用尽)
    stated("额度已用完", PaymentRequired),
    stated("资源包", PaymentRequired), // resource package (Zhipu: 无可用资源包)
    stated("套餐已到期", PaymentRequired), // plan expired (Zhipu 1309)
    stated("使用上限", PaymentRequired), // usage cap of a plan (Zhipu 1308/1310)
    // (batch 15) A quota with its reset named ("Your quota will reset after 8h44m7s", Gemini
    // Code Assist's per-model allowance): an allowance of the plan, like Zhipu's 5-hour 使用上限.
    stated("quota will reset", PaymentRequired),
    // Counts of use over their limit (搜索次数超出限制, 调用次数超出限制: "the number of searches /
    // calls is over the limit"): an allowance, unless a short window is named with it.
    said("次数超出限制", PaymentRequired),
    said("次数已达上限", PaymentRequired),
    // "Check your bill" (API使用超出限额，请检查您的账单): the Chinese of OpenAI's billing words.
    said("账单", PaymentRequired),
    stated("usage has reached the max", PaymentRequired), // Hugging Face free inference allowance
    // Volcengine Ark "Safe Experience Mode": the account's own inference cap paused the model.
    stated("safe experience mode", PaymentRequired),
    stated("model service has been paused", PaymentRequired),
    said("payment required", PaymentRequired),
    said("billing", PaymentRequired),
    // Safety
    stated("content_policy_violation", ContentFiltered),
    stated("content filtering policy", ContentFiltered), // Anthropic: Output blocked by content filtering policy
    said("content_filter", ContentFiltered),
    said("content filter", ContentFiltered),
    stated("content management policy", ContentFiltered), // Azure OpenAI
    said("content policy", ContentFiltered),
    stated("safety system", ContentFiltered),
    stated("responsibleaipolicyviolation", ContentFiltered),
    said("flagged", ContentFiltered),
    stated("blocked due to safety", ContentFiltered),
    // Gemini's safety blocks as clients word them: aichat "Blocked by safety settings",
    // NextChat "Message is being blocked for reason: SAFETY", google-generativeai's ValueError
    // "... Check the `response.prompt_feedback` to see if the prompt was blocked."
    stated("blocked by safety", ContentFiltered),
    stated("blocked for reason: safety", ContentFiltered),
    said("prompt was blocked", ContentFiltered),
    // "Your request contains unsafe content and was intercepted by the system."
    stated("不安全内容", ContentFiltered),
    stated("content moderation", ContentFiltered), // xAI: rejected by content moderation
    stated("content-moderated", ContentFiltered),
    said("finish_reason: safety", ContentFiltered), // google-generativeai candidate repr
    said("block_reason:", ContentFiltered),         // google-generativeai prompt_feedback repr
    // Moderation in the providers' own words (stated: a relay's 500 around them is no reason
    // to send the same text again):
    stated("content exists risk", ContentFiltered), // DeepSeek 400
    stated("inappropriate content", ContentFiltered), // DashScope DataInspectionFailed
    stated("datainspectionfailed", ContentFiltered),
    stated("data_inspection_failed", ContentFiltered),
    stated("considered high risk", ContentFiltered), // Moonshot/Kimi content_filter
    stated("sensitive content", ContentFiltered), // Volcengine InputTextRiskDetection, Zhipu 1301
    stated("unsafe content", ContentFiltered),
    stated("敏感内容", ContentFiltered), // sensitive content (Zhipu 1301)
    stated("不安全或敏感", ContentFiltered),
    stated("内容涉敏", ContentFiltered), // MiniMax 1026/1027: 输入/输出内容涉敏
    stated("涉及敏感", ContentFiltered),
    stated("内容审核", ContentFiltered), // content review failed (iFlytek Spark 10013/10014)
    stated("内容安全", ContentFiltered),
    // "failed the safety review" (StepFun 451), the review named without "content".
    stated("安全审核", ContentFiltered),
    said("安全限制", ContentFiltered), // 已触发安全限制: a safety limit was triggered
    said("blocked: true", ContentFiltered), // Vertex AI safety ratings
    // google-generativeai's `response.text` on a filtered candidate (a ValueError):
    said("reciting from copyrighted material", ContentFiltered),
    said("to determine if the response was blocked", ContentFiltered),
    // (batch 15) google-generativeai's "Check the `candidate.safety_ratings` to see if the
    // response was blocked", google-genai's `block_reason=<BlockedReason.OTHER: 'OTHER'>` repr,
    // an image model's "blocked by the safety filter".
    said("if the response was blocked", ContentFiltered),
    said("block_reason=", ContentFiltered),
    said("blockedreason.", ContentFiltered),
    stated("safety filter", ContentFiltered),
    // Credentials and access
    said("invalid api key", Unauthorized),
    said("api key invalid", Unauthorized), // apps' own wording of a refused key
    said("api key is invalid", Unauthorized), // SiliconFlow
    said("invalid token", Unauthorized),   // SiliconFlow's body for a missing or foreign key
    // iFlytek's gateway: "HMAC signature cannot be verified" (a wrong secret or a skewed clock).
    said("signature cannot be verified", Unauthorized),
    said("illegal access", Forbidden), // iFlytek 10105 illegal access|no appid info
    said("credentials validation failed", Unauthorized), // Dify's check of a provider key
    // iFlytek Spark 11200 by its name and words (www.xfyun.cn/doc/spark/Web.html#_3-2-错误码):
    // AppIdNoAuthError, 授权错误：该appId没有相关功能的授权或者业务量超过限制.
    said("appidnoautherror", Forbidden),
    said("没有相关功能的授权", Forbidden),
    said("incorrect api key", Unauthorized),
    said("invalid x-api-key", Unauthorized),
    said("api key not valid", Unauthorized),
    said("api key expired", Unauthorized),
    said("invalid_api_key", Unauthorized),
    said("invalid subscription key", Unauthorized), // Azure: Access denied due to invalid subscription key
    said("security token included in the request is", Unauthorized), // AWS: ... is invalid / expired
    said("authentication_error", Unauthorized),
    said("invalid authentication", Unauthorized),
    said("unauthorized", Unauthorized),
    said("token has expired", Unauthorized), // botocore SSO TokenRetrievalError
    said("authentication is not sufficient", Unauthorized), // Claude Code: API key authentication is not sufficient
    said("please run /login", Unauthorized),
    said("invalid_grant", Unauthorized), // OAuth refresh refused (google-auth)
    said("permission denied", Forbidden),
    // (batch 15) OpenAI's gate for some models: "Your organization must be verified to stream
    // this model" (a 400 or a 404 as clients relay it); ERNIE's 用户访问被限制 (user access
    // restricted).
    said("must be verified to", Forbidden),
    said("访问被限制", Forbidden),
    said("user location is not supported", Forbidden), // Gemini API region gate
    said("is not allowed to use", Forbidden),          // Vertex Model Garden
    said("not authorized to invoke", Forbidden),       // Bedrock ValidationException
    said("permission_error", Forbidden),
    said("is not authorized to perform", Forbidden), // AWS AccessDeniedException
    said("don't have access to the model", Forbidden), // Bedrock model access
    said("access denied", Forbidden),
    said("forbidden", Forbidden),
    // Set-up mistakes
    said("missing api key", Configuration),
    said("api key is missing", Configuration),
    said("no api key", Configuration),
    said("api_key client option must be set", Configuration),
    said("unable to locate credentials", Configuration), // botocore NoCredentialsError
    said("you must specify a region", Configuration),    // botocore NoRegionError
    // A TLS certificate failure is a set-up mistake even when a client wraps it as a server
    // error (openai-python raises APIConnectionError; gateways answer 500/502).
    stated("certificate verify failed", Configuration),
    stated("invalid peer certificate", Configuration),
    stated("unable to get local issuer certificate", Configuration),
    stated("self signed certificate", Configuration),
    stated("self-signed certificate", Configuration),
    stated("certificate has expired", Configuration),
    said("certificate", Configuration),
    // A key the process never got: "OPENAI_API_KEY is not set" (an agent's own 503 around it).
    stated("_api_key is not set", Configuration),
    stated("_api_key not set", Configuration),
    stated("_api_key environment variable", Configuration),
    stated("api key is not set", Configuration),
    stated("api_key is not set", Configuration),
    stated("api key not set", Configuration),
    // Node.js (getaddrinfo ENOTFOUND host), Go ("no such host"), .NET ("No such host is
    // known"): the host does not exist. EAI_AGAIN is the passing resolver failure.
    said("enotfound", Configuration),
    said("no such host", Configuration),
    said("relative url without a base", Configuration),
    said("name or service not known", Configuration),
    said("nodename nor servname provided", Configuration),
    said("no address associated with hostname", Configuration),
    said("unsupported protocol", Configuration),
    said("invalid url", Configuration),
    // requests: "No connection adapters were found for '127.0.0.1:5001/v1'" (no scheme).
    said("no connection adapters", Configuration),
    stated("llm provider not provided", Configuration), // LiteLLM: the model lacks its provider
    said("verify your api base", Configuration),
    said("page not found", NotFound), // a wrong path's default 404 page ("404 page not found")
    said("unknown model", Configuration),
    said("no chat model selected", Configuration), // Continue: no model configured
    said("no model selected", Configuration),
    said("model not found", NotFound),
    // (batch 15) "You don't have access to this model or the model name is invalid".
    said("model name is invalid", NotFound),
    said("invalid model name", NotFound),
    // A local server with no model to run (text-generation-webui "No model is loaded!", LM
    // Studio "Failed to load the model ... Error loading model"): the set-up, not a passing state.
    said("no model is loaded", Configuration),
    said("error loading model", Configuration),
    said("failed to load the model", Configuration),
    // Express's default 404 body ("Cannot POST /messages") behind a gateway's 5xx: the
    // configured URL has no such route, on every call.
    stated("cannot post /", Configuration),
    stated("cannot get /", Configuration),
    // JavaScript's TypeError for reading a field of null (an answer read without checking it).
    said("cannot read properties of", Programming),
    said("cannot read property", Programming),
    // OpenAI's Responses API 400: "There was an issue with your request. Please check your
    // inputs and try again".
    said("check your inputs", BadRequest),
    said("model identifier is invalid", NotFound), // Bedrock
    said("repository not found", NotFound),        // Hugging Face Hub
    said("non-serverless model", NotFound),        // Together: needs a dedicated endpoint
    said("invalid model '", NotFound),             // Perplexity: Invalid model 'sonar-x'.
    said("no such model", NotFound),
    said("try pulling it first", NotFound), // Ollama: model "x" not found, try pulling it first
    said("does not exist or you do not have access", NotFound), // OpenAI: The model `x` ...
    // A named thing that does not exist: "The model: `gpt-4` does not exist" (legacy OpenAI),
    // Ollama's "pull model manifest: file does not exist"; 模型不存在 (model does not exist).
    // Google's INVALID_ARGUMENT words, also a Gemini Live close reason (1007).
    said("request contains an invalid argument", BadRequest),
    said("参数非法", BadRequest), // Zhipu 1214: messages / max_tokens 参数非法 (parameter illegal)
    said("参数不合法", BadRequest),
    said("tool does not exist", BadRequest),
    // OpenAI: "Unsupported parameter: 'max_tokens' is not supported with this model."
    said("unsupported parameter", BadRequest),
    said("not supported with this model", BadRequest), // Groq: "requested tool does not exist" (the model's call)
    said("does not exist", NotFound),
    said("模型不存在", NotFound),
    said("deployment for this resource does not exist", NotFound), // Azure OpenAI
    said("endpoint that does not exist", NotFound), // Volcengine InvalidEndpoint.NotFound
    said("not_found_error", NotFound),
    // llama.cpp's 501 "This server does not support embeddings. Start it with `--embeddings`"
    // (also through Ollama's client): a missing feature, whatever the status.
    stated("this server does not support", BadRequest),
    // Bedrock relays the model's own validation errors, even inside a 200.
    said("the model returned the following errors", BadRequest),
    // Output that failed validation (pydantic: "1 validation error for Plan")
    said("validation error for", Validation),
    said("validation errors for", Validation),
    said("missing required properties", Validation), // json_schemer: object at root is missing ...
    // Output parsers of agent frameworks: the model answered, its answer did not parse.
    said("outputparserexception", Validation), // langchain_core.exceptions
    said("output parser failed", Validation),  // ragas RagasOutputParserException
    said("failed to parse the output", Validation),
    said("could not parse llm output", Validation), // langchain agents
    said("failed to parse model output", Validation),
    // The AI SDK's NoObjectGeneratedError: "No object generated: could not parse the response."
    said("no object generated", Validation),
    said("structuredoutputerror", Validation), // magentic
    said("instructorretryexception", Validation),
    // gRPC status names a client prints (grpc-go "rpc error: code = PermissionDenied desc = ...",
    // grpcio "StatusCode.PERMISSION_DENIED"; grpc.github.io/grpc/core/md_doc_statuscodes.html):
    said("code = unauthenticated", Unauthorized),
    said("statuscode.unauthenticated", Unauthorized),
    said("code = permissiondenied", Forbidden),
    said("statuscode.permission_denied", Forbidden),
    said("code = notfound", NotFound),
    said("statuscode.not_found", NotFound),
    said("code = invalidargument", BadRequest),
    said("statuscode.invalid_argument", BadRequest),
    said("code = failedprecondition", BadRequest),
    said("statuscode.failed_precondition", BadRequest),
    said("code = unimplemented", BadRequest),
    said("statuscode.unimplemented", BadRequest),
    // (batch 19) Gemini's SDKs word a blocked answer as a sentence, not a finish-reason field:
    // @google/generative-ai `formatBlockErrorMessage` "Candidate was blocked due to
    // {finishReason}" (RECITATION, SAFETY, ...) and "Text not available. Response was blocked
    // due to {blockReason}" (the prompt's feedback); Firebase AI the same.
    stated("candidate was blocked", ContentFiltered),
    stated("response was blocked due to", ContentFiltered),
    stated("prompt was blocked", ContentFiltered),
    // MiniMax's moderation status messages (platform.minimax.io errorcode: 1026 "input
    // new_sensitive", 1027 "output new_sensitive"), quoted in text under a 500 or none.
    stated("new_sensitive", ContentFiltered),
    stated("input sensitive", ContentFiltered),
    stated("output sensitive", ContentFiltered),
    // OpenRouter's routing refused by the account's own privacy settings ("Paid model training
    // violation (account settings): 1 endpoint excluded", openrouter.ai/settings/privacy): a
    // setting, even under a 502, the same on every try. (Its 404 "No endpoints found matching
    // your data policy" stays the 404's not_found, as the corpus has it since batch 13.)
    stated("model training violation", Configuration),
    stated("model publication violation", Configuration),
    // A request field that may take only the values it lists (vLLM's "tool_choice must either
    // be a named tool, 'auto', or 'none'", pydantic's "Input should be 'a' or 'b'").
    said("must either be", BadRequest),
    said("must be either", BadRequest),
    // (batch 27) Gemini's blocking finishReasons as Gemini CLI words them
    // (`useGeminiStream.ts` finishReasonMessages: SAFETY, RECITATION, BLOCKLIST,
    // PROHIBITED_CONTENT, SPII, IMAGE_SAFETY, IMAGE_PROHIBITED_CONTENT): moderation of the reply.
    said("stopped due to safety reasons", ContentFiltered),
    said("stopped due to recitation policy", ContentFiltered),
    said("stopped due to forbidden terms", ContentFiltered),
    said("stopped due to prohibited content", ContentFiltered),
    said(
        "stopped due to sensitive personally identifiable information",
        ContentFiltered,
    ),
    said("stopped due to image safety violations", ContentFiltered),
    said("stopped due to image prohibited content", ContentFiltered),
    // ... and by the enum's own names, as SDKs print a candidate (ai.google.dev FinishReason;
    // google-genai's repr "FinishReason.RECITATION", REST's "finishReason": "RECITATION").
    said("finishreason: recitation", ContentFiltered),
    said("finishreason.recitation", ContentFiltered),
    said("\"finishreason\": \"recitation\"", ContentFiltered),
    said("finishreason.safety", ContentFiltered),
    said("prohibited_content", ContentFiltered),
    said("image_safety", ContentFiltered),
];

/// Transient phrases: only consulted when nothing permanent (and no status) was found.
pub const TRANSIENT_PHRASES: &[Phrase] = &[
    // reqwest (Rust clients: Codex): the request never went out, whatever the caller calls it.
    said("error sending request for url", Connection),
    // Codex: "stream disconnected before completion: <cause>"; the cause may be a server's
    // words ("An error occurred while processing your request"), the cut is what happened.
    said("stream disconnected before completion", StreamInterrupted),
    // Streams that stopped before their stop reason (CONTRACT §2: stream_interrupted).
    said("stream ended without", StreamInterrupted),
    said("without finish_reason", StreamInterrupted),
    said("without a finish_reason", StreamInterrupted),
    said("without a finish reason", StreamInterrupted),
    said("before a finish_reason", StreamInterrupted),
    said("finish_reason: error", StreamInterrupted), // a provider's stream ended in error
    said("finish_reason=error", StreamInterrupted),
    said("stream closed before", StreamInterrupted),
    // (batch 15) "Anthropic stream ended before message_stop", "Upstream provider stream ended
    // before its completion event", 流式连接异常中断 (the streaming connection broke off).
    said("stream ended before", StreamInterrupted),
    said("异常中断", StreamInterrupted),
    // Frequency and concurrency, in English and Chinese (Baidu, ERNIE SDK, Zhipu 1302/1303,
    // DashScope Throttling, iFlytek 11202/11203, Volcengine RateLimitExceeded):
    said("too frequent", RateLimited),
    said("too frequently", RateLimited),
    said("request frequency", RateLimited),
    said("frequency limit", RateLimited),
    said("qps", RateLimited), // Baidu error_code 18: Open api qps request limit reached
    said("max rpm", RateLimited),
    said("rpm", RateLimited),
    said("tpm", RateLimited),
    said("requests per minute", RateLimited),
    said("tokens per minute", RateLimited),
    said("per minute", RateLimited),
    said("per 1 minute", RateLimited), // flask-limiter / slowapi: "50 per 1 minute"
    said("per second", RateLimited),
    said("per 1 second", RateLimited),
    said("concurrency limit", RateLimited), // CoreWeave 429: Concurrency limit reached for requests
    said("concurrent requests", RateLimited),
    said("max concurrency", RateLimited),
    said("request limit reached", RateLimited), // "Worker local total request limit reached"
    said("requests limit reached", RateLimited),
    said("enqueued token limit reached", RateLimited), // Azure OpenAI Batch
    said("throttling threshold", RateLimited),         // API gateways (APIG.0308)
    said("rate exceeded", RateLimited),                // AWS "Rate exceeded"
    said("quota exceeded", RateLimited),
    said("访问过于频繁", RateLimited), // requests too frequent (Baidu, ERNIE SDK)
    said("访问频繁", RateLimited),     // Doubao: 当前服务访问频繁，请稍后重试
    said("每日限制", RateLimited),     // a daily limit (made payment_required by its window)
    // Alibaba DashScope's 429 Throttling: "You exceeded your current requests list."
    said("exceeded your current requests list", RateLimited),
    // Tencent Cloud RequestLimitExceeded: 超过了每秒频率上限 (over the per-second frequency cap);
    // apps' own words for a provider's throttle: 请求速度过快 (requests too fast), 访问频率.
    said("频率上限", RateLimited),
    said("请求速度过快", RateLimited),
    said("访问频率", RateLimited),
    said("请求过于频繁", RateLimited),
    said("过于频繁", RateLimited),
    said("太频繁", RateLimited), // (batch 18) 你问的太频繁了 (asked too often)
    said("频率过高", RateLimited), // Zhipu 1303
    said("频率超限", RateLimited),
    said("请求频率", RateLimited),
    said("并发数过高", RateLimited), // Zhipu 1302
    said("并发超限", RateLimited),   // erniebot RequestLimitError
    said("并发", RateLimited),       // concurrency
    said("限流", RateLimited),       // throttled
    said("流控", RateLimited),       // flow control (iFlytek 11202 秒级流控超限)
    said("速率限制", RateLimited),   // rate limit (Zhipu 1302)
    // Busy, saturated, no free slot: shared capacity (Zhipu 1305/1312 访问量过大, one-api
    // 上游负载已饱和, llama.cpp / LM Studio slots):
    said("访问量过大", Overloaded),
    said("过载", Overloaded), // overloaded (iFlytek 503 引擎当前过载, Zhipu 平台服务过载)
    said("负载已饱和", Overloaded),
    said("负载已满", Overloaded), // one-api: 负载已满，请稍后再试 (load is full)
    said("负载过高", Overloaded),
    said("系统繁忙", Overloaded),
    said("服务繁忙", Overloaded),
    said("服务器繁忙", Overloaded),
    said("繁忙", Overloaded),
    said("server is busy", Overloaded),
    said("service is busy", Overloaded),
    said("system is busy", Overloaded),
    said("slot unavailable", Overloaded),
    said("no slot available", Overloaded),
    said("engine is currently overloaded", Overloaded), // Moonshot engine_overloaded_error
    // Overload worded as traffic (docs.wandb.ai/inference/api-reference/errors: 503 "Server is
    // experiencing high traffic"; Cerebras' queue 429 "We're experiencing high traffic").
    said("high traffic", Overloaded),
    said("capacity temporarily exceeded", Overloaded),
    // Transport failures of non-Python clients, known to us only as text:
    said("socket hang up", Connection), // Node.js http: ECONNRESET before a response
    // (batch 14) reactor-netty "Connection prematurely closed BEFORE response", requests'
    // "Connection broken: IncompleteRead", .NET "actively refused it", a browser's "Failed to
    // fetch", Go apps' "error: EOF".
    said("prematurely closed", Connection),
    said("connection broken", Connection),
    said("actively refused", Connection),
    said("error connecting to", Connection),
    said("failed to fetch", Connection),
    said("error: eof", Connection),
    said("gateway request failed", Connection), // AI Gateway client: the socket closed under it
    said("typeerror: terminated", Connection),  // undici, through the SDKs' own error classes
    said("connection was closed", Connection), // Bun: The socket connection was closed unexpectedly
    said("closed unexpectedly", Connection),
    said("unexpected end of stream", Connection), // OkHttp: unexpected end of stream on https://...
    said("\": eof", Connection), // Go: Post "https://...": EOF (the connection closed before the answer)
    said("[errno 11002]", Connection), // Windows WSATRY_AGAIN (getaddrinfo failed, for now)
    said("failed to resolve", Connection), // urllib3 NameResolutionError; a host that does not exist says so itself
    said("other side closed", Connection), // undici: SocketError other side closed
    said("und_err_socket", Connection),
    said("premature close", Connection), // Node.js streams: ERR_STREAM_PREMATURE_CLOSE
    // openai-python < 1.0: APIConnectionError("Error communicating with OpenAI")
    said("error communicating with", Connection),
    said("err_stream_premature_close", Connection), // the same, by its Node error code
    said("response payload is not completed", Connection), // aiohttp ClientPayloadError
    said("fetch failed", Connection),               // undici TypeError: fetch failed
    said("eai_again", Connection), // getaddrinfo EAI_AGAIN: the resolver failed for now
    said("goaway", Connection),    // Go net/http2: server sent GOAWAY and closed the connection
    said("use of closed network connection", Connection), // Go
    said("server closed idle connection", Connection), // Go
    said("stream error: stream id", Connection), // Go http2 stream reset
    // .NET's network timeout surfaces as a cancelled read of the transport connection:
    // "The operation was cancelled because it exceeded the configured timeout of 0:01:40".
    said("configured timeout", Timeout),
    said("an error occurred while sending the request", Connection), // .NET HttpRequestException
    said(
        "unable to read data from the transport connection",
        Connection,
    ), // .NET IOException
    said("ssl connection could not be established", Connection), // .NET; a certificate reason says so itself
    said("no close frame received or sent", Connection), // python-websockets: close code 1006
    said("abnormal closure", Connection),
    said("keepalive ping timeout", Connection),
    // gRPC status names that pass (grpc.github.io/grpc/core/md_doc_statuscodes.html):
    // (batch 18) grpc-go's transport failure under UNAVAILABLE ("code = Unavailable desc =
    // connection error: desc = \"transport: Error while dialing ... connection refused\""):
    // the dial failed, a connection.
    said("connection error: desc", Connection),
    said("code = unavailable", ServerError),
    said("statuscode.unavailable", ServerError),
    said("statuscode=unavailable", ServerError), // Grpc.Core: Status(StatusCode=Unavailable, ...)
    said("statuscode=deadlineexceeded", Timeout),
    said("statuscode=resourceexhausted", RateLimited),
    said("statuscode=internal", ServerError),
    said("code = resourceexhausted", RateLimited),
    said("code = deadlineexceeded", Timeout),
    said("statuscode.deadline_exceeded", Timeout),
    said("code = internal", ServerError),
    said("statuscode.internal", ServerError),
    said("code = aborted", ServerError),
    said("statuscode.aborted", ServerError),
    // Malformed answers as JavaScript and .NET report them (System.Text.Json, JSON.parse):
    said("is an invalid start of a value", InvalidResponse),
    said("the json value could not be converted", InvalidResponse),
    said("unexpected end of json input", InvalidResponse),
    said("in json at position", InvalidResponse),
    said("is not valid json", InvalidResponse),
    // serde's words for a body of the wrong shape (reqwest's "error decoding response body:
    // expected value at line 1 column 1", "did not match any variant of untagged enum").
    said("expected value at line", InvalidResponse),
    said("did not match any variant", InvalidResponse),
    said("failed to read json", InvalidResponse),
    said("missing field `", InvalidResponse),
    said("unknown variant `", InvalidResponse),
    said("invalid type: ", InvalidResponse),
    // reqwest's decode error without serde's words: the body stopped mid-read.
    said("error decoding response body", StreamInterrupted),
    said("rate limit", RateLimited),
    said("rate limited", RateLimited),
    said("rate-limited", RateLimited),
    said("rate-limit", RateLimited), // (batch 18) "the local rate-limit queue budget"
    said("ratelimit", RateLimited),
    said("ratelimited", RateLimited),
    said("rate_limit_error", RateLimited),
    said("rate_limit_exceeded", RateLimited),
    said("ratelimiterror", RateLimited),
    said("toomanyrequests", RateLimited), // .NET HttpStatusCode.TooManyRequests in logs
    // Exception class names logged inside a message ("litellm.BadGatewayError: ...").
    said("badgatewayerror", ServerError),
    said("internalservererror", ServerError),
    said("serviceunavailableerror", ServerError),
    said("apiconnectionerror", Connection),
    said("apitimeouterror", Timeout),
    said("too many requests", RateLimited),
    said("too many concurrent requests", RateLimited),
    said("no deployments available", RateLimited), // LiteLLM router: every deployment cooling down
    said("too many 429 error responses", RateLimited), // urllib3 MaxRetryError
    said("throttled", RateLimited),
    said("throttling", RateLimited),
    said("throttlingexception", RateLimited),
    // (batch 21) A throttle in words: Claude Code's "Server is temporarily limiting requests
    // (not your usage limit)" (anthropics/claude-code#81487), apps' 429 wordings "The data
    // provider is temporarily limiting requests", "GitHub is temporarily limiting requests".
    said("limiting requests", RateLimited),
    said("limiting your requests", RateLimited),
    said("restricting requests", RateLimited),
    said("throttling requests", RateLimited),
    said("resource_exhausted", RateLimited),
    said("resource exhausted", RateLimited),
    said("resource has been exhausted", RateLimited), // Google
    said("overloaded", Overloaded),
    said("server busy", Overloaded), // Ollama: maximum pending requests exceeded
    said("no slots available", Overloaded), // Ollama, llama.cpp
    said("maximum pending requests", Overloaded),
    said("over capacity", Overloaded),
    said("at capacity", Overloaded),
    said("capacity exceeded", Overloaded),
    said("high demand", Overloaded),
    said("queue is full", Overloaded),
    said("overloaded_error", Overloaded),
    said("gateway timeout", ServerError),
    said("gateway time-out", ServerError),
    said("internal server error", ServerError),
    said("internal error", ServerError),
    said("server had an error", ServerError), // OpenAI 500
    said(
        "an error occurred while processing your request",
        ServerError,
    ), // OpenAI 500
    said("error occurred during streaming", StreamInterrupted), // openai-python: an SSE error event without a message
    said("error reading llm response", StreamInterrupted),      // Ollama: the runner's stream broke
    said("llama runner process", ServerError), // Ollama: the runner died or was killed
    said("malformed function call", ServerError), // Gemini finish reason: the model erred, a new sample may not
    said("bad gateway", ServerError),
    said("service unavailable", ServerError),
    // (batch 21) A gateway's upstream down: docs.seermartech.cn's 50004 "Upstream unavailable
    // (retry later)", Go reverse proxies' 502 "upstream unavailable", relays' 503 "voice
    // upstream unavailable": the server behind it, whose return the caller waits for.
    said("upstream unavailable", ServerError),
    said("upstream is unavailable", ServerError),
    said("upstream not available", ServerError),
    said("upstream is not available", ServerError),
    said("upstream is down", ServerError),
    said("no available upstream", ServerError),
    said("currently unavailable", ServerError),
    said("currently loading", ServerError), // Hugging Face: Model is currently loading
    said("no healthy upstream", ServerError),
    said("too many 500 error responses", ServerError),
    said("too many 502 error responses", ServerError),
    said("too many 503 error responses", ServerError),
    // Wordings PlanExe's substring list retried ("temporarily unavailable", "capacity",
    // "try again"), kept to the phrases that only ever describe a passing condition.
    // (batch 15) Bedrock's "Try your request again" after "an unexpected error during
    // processing"; a usage limit that says "Come back later".
    said("try your request again", ServerError),
    said("come back later", RateLimited),
    said("temporarily unavailable", ServerError),
    said("try again later", ServerError),
    said("请稍后再试", ServerError), // please try again later
    said("请稍候再试", ServerError),
    said("请稍后重试", ServerError),
    said("稍后再试", ServerError),
    said("稍后重试", ServerError),
    said("server error", ServerError),
    // Envoy / Istio: "upstream connect error or disconnect/reset before headers. reset reason:
    // connection termination": the proxy's connection to the upstream failed or was reset.
    said("upstream connect error", Connection),
    said("reset before headers", Connection),
    said("upstream_reset_before_response_started", Connection),
    said("origin is unreachable", ServerError),
    said("web server is down", ServerError),
    said("timed out", Timeout),
    said("timeout", Timeout),
    said("time out", Timeout),
    said("deadline exceeded", Timeout),
    said("context deadline", Timeout), // Go's context deadline, however a caller words it
    // (batch 23) Go's `context.Canceled` ("context canceled", src/context/context.go) on a call
    // to the model: the client's own wait cancelling the request (paperless-gpt#454 on a slow
    // Ollama). A caller giving up on purpose raises before any retry is asked for.
    said("error getting response from llm: context canceled", Timeout),
    said("etimedout", Timeout),
    said("temporary failure in name resolution", Connection),
    said("all connection attempts failed", Connection), // httpx ConnectError
    said("failed to establish a new connection", Connection), // urllib3
    said("connection refused", Connection),
    said("connection reset", Connection),
    said("connection was reset", Connection), // BoringSSL via curl_cffi: SSL_connect: Connection was reset
    said("connection aborted", Connection),
    said("connection closed", Connection),
    said("connection error", Connection),
    said("connection failed", Connection),
    said("connection lost", Connection),
    said("failed to connect", Connection),
    said("unable to connect", Connection), // Continue: Unable to connect to local Ollama instance
    said("could not connect to the endpoint url", Connection), // botocore EndpointConnectionError
    said("failed to open tcp connection", Connection), // Net::HTTP / Faraday
    said("broken pipe", Connection),
    said("forcibly closed by the remote host", Connection), // Windows WSAECONNRESET
    said("econnrefused", Connection),
    said("econnreset", Connection),
    said("server disconnected", Connection),
    said("remote end closed connection", Connection),
    said("remote protocol error", Connection),
    said("peer closed connection", Connection),
    said("incomplete chunked read", Connection),
    said("ended prematurely", Connection), // requests ChunkedEncodingError
    said("eof occurred in violation of protocol", Connection),
    said("unexpected eof", Connection),
    said("network is unreachable", Connection),
    said("invalid json", InvalidResponse),
    said("malformed json", InvalidResponse),
    said("expecting value", InvalidResponse),
    said("failed to parse", InvalidResponse),
    // A service's own retries of an internal step ran out ("failed to update user quota after
    // max retries"): its failure, and a passing one.
    said("after max retries", ServerError),
];

/// What a connection failure's text says when its class cannot tell: the first row found wins.
/// A temporary resolver failure passes; a bad certificate or a host that does not exist is a
/// set-up mistake; a connect that ran out of time is a timeout (Faraday raises
/// `ConnectionFailed` for Net::HTTP's "execution expired").
pub const NETWORK_PHRASES: &[Phrase] = &[
    said("temporary failure in name resolution", Connection),
    said("eai_again", Connection),
    said("enotfound", Configuration),
    said("no connection adapters", Configuration), // requests: a base URL without its scheme
    said("no such host", Configuration),
    said("certificate", Configuration),
    said("name or service not known", Configuration),
    said("nodename nor servname provided", Configuration),
    said("no address associated with hostname", Configuration),
    // Windows prints "getaddrinfo failed" for both WSAHOST_NOT_FOUND (11001, no such host) and
    // WSATRY_AGAIN (11002, the resolver failed for now); the errno tells them apart.
    said("[errno 11002]", Connection),
    said("getaddrinfo failed", Configuration), // Windows WSAHOST_NOT_FOUND
    said("hostname mismatch", Configuration),
    said("wrong version number", Configuration),
    said("execution expired", Timeout),
    said("timed out", Timeout),
    said("timeout", Timeout),
];

/// Whole messages that name a failure only by one word (undici's `TypeError: terminated`, the
/// body of a fetch cut mid-way): matched against the trimmed, lower-cased message alone.
pub const EXACT_MESSAGES: &[(&str, Category)] = &[
    ("terminated", Connection),
    ("eof", Connection),
    // A 404's reason phrase alone, as a client that dropped the status prints it.
    ("not found", NotFound),
    // (batch 18) A client's context line printed without the cause it wrapped (Zed's "failed
    // to stream completion", the context of any failed completion: a 500 after retries as well
    // as a bad key, as zed's own longer texts show). Alone it says nothing: unknown, not a cut.
    ("failed to stream completion", Unknown),
    // (batch 29) The same context line under Zed's panel frame, run together as the panel shows
    // it ("Error interacting with language model failed to stream completion"): still no cause.
    (
        "error interacting with language model failed to stream completion",
        Unknown,
    ),
    // (batch 35a) .NET's OperationCanceledException default text, alone: HttpClient raises it
    // (as TaskCanceledException) when its Timeout elapses, and before .NET 5 with no word of a
    // timeout (dotnet/runtime#21965; microsoft/teams-sdk#2216, Azure logging a 408). A caller's
    // own cancel reaches us as a class (CancelledError, Interrupt), never as this bare line.
    ("the operation was canceled.", Timeout),
    ("the operation was canceled", Timeout),
];

/// The messages of the `TypeError` undici (Node's built-in fetch) raises for a transport
/// failure: a JavaScript TypeError with these exact words is no programming error.
pub const UNDICI_TYPE_ERRORS: &[(&str, Category)] = &[
    ("fetch failed", Connection),
    ("terminated", Connection),
    // (batch 20) The browsers' fetch TypeError for a request that got no answer (the Fetch
    // standard's "network error", worded per engine): Chromium "Failed to fetch", Firefox
    // "NetworkError when attempting to fetch resource.", WebKit "Load failed".
    ("failed to fetch", Connection),
    (
        "networkerror when attempting to fetch resource.",
        Connection,
    ),
    ("load failed", Connection),
];

/// Words that mention money or a plan at all: a 402 that says any of them stays payment, even
/// where no billing phrase of the main tables matches ("Rate limit reached. Add credits").
pub const BILLING_HINTS: &[&str] = &[
    "credit",
    "credits",
    "balance",
    "billing",
    "payment",
    "pay",
    "paid",
    "plan",
    "subscription",
    "upgrade",
    "top up",
    "recharge",
    "invoice",
    "余额",
    "充值",
    "欠费",
    "套餐",
];

/// Words that ask to try again later without naming when (`short_quota`): a limit worded so
/// refills within a retry budget unless a day or more is named with it.
pub const TRY_LATER: &[&str] = &[
    "try again later",
    "请稍后再试",
    "请稍候再试",
    "请稍后重试",
    "稍后再试",
    "稍后重试",
];

/// Words that name a quota window of a day or more (CONTRACT §2: such a quota is
/// `payment_required`, no retry budget outlasts it). Read only where the failure is a rate
/// limit. Quota ids (Gemini `GenerateRequestsPerDayPerProjectPerModel-FreeTier`) are read by
/// their CamelCase words in `long_window_in_ids`.
pub const LONG_WINDOW_PHRASES: &[Phrase] = &[
    said("per day", PaymentRequired), // OpenAI "requests per day (RPD)", Gemini "per day per user per tier"
    said("per 1 day", PaymentRequired), // flask-limiter "1000 per 1 day"
    // (batch 17) Quota ids in kebab case: OpenRouter's "Rate limit exceeded:
    // free-models-per-day" and "free-models-per-day-high-balance" (its daily cap on free models).
    said("per-day", PaymentRequired),
    said("per-week", PaymentRequired),
    said("per-month", PaymentRequired),
    said("daily", PaymentRequired), // "exhausted your daily quota", Baidu "Open api daily request limit reached"
    said("rpd", PaymentRequired),
    said("tpd", PaymentRequired), // Groq, Moonshot: tokens per day
    said("per month", PaymentRequired),
    said("monthly", PaymentRequired),
    said("per week", PaymentRequired),
    said("weekly", PaymentRequired),
    said("今日", PaymentRequired), // today's (Zhipu 1304: 今日调用次数限额)
    said("每日", PaymentRequired),
    said("每天", PaymentRequired),
    said("当日", PaymentRequired),
    said("当天", PaymentRequired),
    said("日流控", PaymentRequired), // iFlytek 11201 日流控超限
    said("日限额", PaymentRequired),
    said("天配额", PaymentRequired),
    said("每月", PaymentRequired),
    said("本月", PaymentRequired),
    said("每周", PaymentRequired),
    said("本周", PaymentRequired),
    said("tomorrow", PaymentRequired), // "Please try again tomorrow"
    said("明天", PaymentRequired),     // 请明天再试
    // (batch 27) OpenRouter's limit ids joined by underscores ("Rate limit exceeded:
    // limit_rpd/google/gemini-2.0-flash-thinking-exp-01-21/...", its free models' day cap).
    said("limit_rpd", PaymentRequired),
    said("limit_tpd", PaymentRequired),
];

/// curl's exit and error codes (curl.se/libcurl/c/libcurl-errors.html) that name a failure of
/// the transfer, as curl-based clients print them ("curl: (92) HTTP/2 stream 1 was not closed
/// cleanly", Emacs' "exited abnormally with code 92", curl_cffi's "Failed to perform, ErrCode:
/// 35"). A code not listed is no evidence.
pub const CURL_CODES: &[(u16, Category)] = &[
    // The whole CURLcode list was read (curl.se/libcurl/c/libcurl-errors.html); codes of FTP,
    // files, memory and the caller's own callbacks say nothing about an API call and are left out.
    (1, Configuration),    // unsupported protocol: the URL's scheme
    (3, Configuration),    // URL malformat
    (5, Configuration),    // couldn't resolve proxy
    (6, Configuration),    // couldn't resolve host
    (7, Connection),       // couldn't connect
    (8, InvalidResponse),  // weird server reply
    (16, Connection),      // HTTP/2 framing layer
    (18, Connection),      // partial file: the transfer ended early
    (28, Timeout),         // operation timed out
    (35, Connection),      // SSL connect error (a certificate's own words say otherwise)
    (43, Programming),     // bad function argument
    (47, Configuration),   // too many redirects
    (51, Configuration),   // (older libcurl) peer certificate failed verification
    (52, Connection),      // empty reply from server
    (53, Configuration),   // SSL engine not found
    (54, Configuration),   // SSL engine set failed
    (55, Connection),      // send failure
    (56, Connection),      // receive failure
    (58, Configuration),   // local client certificate problem
    (59, Configuration),   // SSL cipher
    (60, Configuration),   // peer certificate cannot be authenticated
    (61, InvalidResponse), // unrecognised content encoding
    (66, Configuration),   // SSL engine init failed
    (67, Unauthorized),    // login denied
    (77, Configuration),   // CA cert file
    (80, Connection),      // SSL shutdown failed
    (81, Connection),      // socket not ready (again)
    (82, Configuration),   // CRL file
    (83, Configuration),   // issuer check failed
    (89, Connection),      // no connection available
    (90, Configuration),   // pinned public key mismatch
    (91, Configuration),   // invalid certificate status
    (92, Connection),      // HTTP/2 stream error
    (93, Programming),     // recursive API call
    (94, Unauthorized),    // authentication function returned an error
    (95, Connection),      // HTTP/3 layer
    (96, Connection),      // QUIC connect error
    (97, Connection),      // proxy handshake error
    (98, Configuration),   // SSL client certificate required
];

/// WebSocket close codes (RFC 6455 §7.4.1, IANA registry) and what a close with each means
/// for a streaming call (OpenAI Realtime, Codex WebSocket transport).
pub const WEBSOCKET_CLOSE_CODES: &[(u16, Category)] = &[
    // The whole 1000-1015 range was read; 1000 (normal closure) is no failure's evidence, and
    // 4000-4999 are each application's own.
    (1001, Connection), // going away: the server is restarting or the proxy dropped us
    (1002, InvalidResponse), // protocol error
    (1003, BadRequest), // unsupported data: the endpoint cannot accept what we sent
    (1005, Connection), // no status received
    (1006, Connection), // abnormal closure: no close frame, the connection dropped
    (1007, BadRequest), // invalid frame payload data (not UTF-8 in a text frame)
    (1008, BadRequest), // policy violation: a received message refused (batch 36), not access
    (1009, ContextOverflow), // message too big to process
    (1010, Configuration), // a mandatory extension the server did not negotiate
    (1011, ServerError), // internal error
    (1012, ServerError), // service restart
    (1013, Overloaded), // try again later
    (1014, ServerError), // bad gateway
    (1015, Configuration), // TLS handshake failed (a certificate)
];

/// Words that introduce a status code in free text ("Error code: 429 - ...", "HTTP 503").
/// A bare number is never evidence: "max_tokens 1500" is not a 500.
pub const STATUS_INTRODUCERS: &[&str] = &[
    // .NET EnsureSuccessStatusCode: "Response status code does not indicate success: 400 (Bad Request)."
    "does not indicate success",
    // Chinese apps' "请求失败: 401" (request failed), "调用失败: 429".
    "失败",
    // Agents' "API Error: 429 status code (no body)" (openai-node's bodiless message, bracketed).
    "api error",
    // A client's error title before the status it got ("Provider Error · 500", Kilo Code).
    "provider error",
    // botocore's "An error occurred (404) when calling the ListFoundationModels operation".
    "error occurred",
    // Node's ws: "Unexpected server response: 403" (a refused WebSocket handshake).
    "server response",
    // Dart's Dio: "the response has a status code of 404".
    "status code of",
    "error code",
    "http error", // urllib: HTTP Error 503: Service Unavailable
    "status code",
    "status",
    "http status",
    "http",
    "http/1.1",
    "http/2",
    "code",
    // Clients' own words for a status, from their sources: httpx's raise_for_status ("Client
    // error '429 Too Many Requests' for url"), curl ("The requested URL returned error: 429"),
    // Guzzle ("resulted in a `429 Too Many Requests` response"), Java's HttpURLConnection
    // ("Server returned HTTP response code: 503") and got ("Response code 429 (Too Many
    // Requests)"), and the fields apps log (`statusCode: 429`, `status_code=429`,
    // PHP curl's `http_code`).
    "client error '",
    "server error '",
    "returned error",
    "resulted in a",
    "response code",
    "statuscode",
    "status_code",
    "http_code",
];

/// Words that introduce a status a wrapper's message quotes ("unable to parse response: status
/// code 400", "HTTP 404"): narrower than [`STATUS_INTRODUCERS`], since a bare `"code": 400`
/// inside a quoted upstream body may be the upstream's business, not this request's.
pub const INNER_STATUS_INTRODUCERS: &[&str] = &[
    "error code",
    "status code",
    "http error",
    "http status",
    "http",
    "statuscode",
    // (batch 31b) A message that begins with the status it relays (AI/ML API's 500 around
    // `'message': '400 Unable to access model gpt-4o-mini. '`).
    "message",
];

/// Categories a message phrase may refine a permanent HTTP status into.
pub const PERMANENT_REFINEMENTS: &[Category] = &[
    Forbidden,
    NotFound,
    OrphanToolCalls,
    ContextOverflow,
    PaymentRequired,
    ContentFiltered,
    Unauthorized,
    // (batch 28) A provider's 400 refusing what the model wrote (Groq's "Failed to call a
    // function ... See 'failed_generation'") names the output, not the request.
    Validation,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The index finds what a scan of the tables finds, for every row and for near misses.
    #[test]
    fn code_row_is_the_first_matching_row() {
        let first = |code: &str| code_rows().find(|r| !r.code.is_empty() && r.code == code);
        let scan = |code: &str| {
            let compound = code.contains(['_', '-', '.']);
            first(code)
                .or_else(|| compound.then(|| code_word_row(code)).flatten())
                .or_else(|| code.split_once('.').and_then(|(f, _)| first(f)))
                // (batch 31a) Then a family's leading words (`CODE_PREFIXES`).
                .or_else(|| {
                    CODE_PREFIXES.iter().find(|r| {
                        ['_', '-', '.']
                            .iter()
                            .any(|sep| code.starts_with(&format!("{}{sep}", r.code)))
                    })
                })
        };
        let mut probes: Vec<String> = code_rows().map(|r| r.code.to_owned()).collect();
        for r in code_rows().filter(|r| !r.code.is_empty()) {
            probes.push(r.code.to_ascii_uppercase());
            probes.push(format!("{}x", r.code));
            probes.push(format!("{}.x", r.code));
            probes.push(r.code[1..].to_owned());
            probes.push(format!("x{}", &r.code[1..]));
        }
        probes.extend(["", "x", ".", "error", "tokens", &"a".repeat(200)].map(String::from));
        for p in &probes {
            let key = |r: &CodeRow| (r.code, r.category, r.generic);
            assert_eq!(code_row(p).map(key), scan(p).map(key), "{p}");
        }
    }

    /// Codes are already normalised (lower case, no ':' or '#'). A code two tables share means
    /// the same in both (the first row wins, so a disagreement would silently lose a fact).
    /// Every table cites its source.
    #[test]
    fn codes_are_normalised_and_agree() {
        let rows: Vec<&CodeRow> = code_rows().collect();
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(crate::classify::body::normalize_code(r.code), r.code);
            assert!(r.code.is_empty() || r.status == 0 || (100..=599).contains(&r.status));
            if let Some(o) = rows[..i]
                .iter()
                .find(|o| !r.code.is_empty() && o.code == r.code)
            {
                assert_eq!(
                    (o.category, o.generic),
                    (r.category, r.generic),
                    "{} means two things",
                    r.code
                );
            }
            assert!(!r.code.is_empty() || r.status != 0, "a fact needs a status");
        }
        for t in provider_tables() {
            assert!(!t.source.is_empty() && !t.rows.is_empty(), "{}", t.provider);
        }
    }
}

#[cfg(test)]
mod batch27a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 27) A day's quota named by its id's suffix is payment, not a rate to wait out;
    /// the per-minute ids beside it stay rate limits.
    #[test]
    fn quota_id_suffixes_name_the_window() {
        let body = |id: &str| {
            format!("{{\"error\":{{\"message\":\"Rate limit exceeded: {id}/google/gemini-2.0-flash-exp/54276bca\",\"code\":429}}}}")
        };
        for (id, want) in [
            ("limit_rpd", PaymentRequired),
            ("limit_tpd", PaymentRequired),
            ("limit_rpm", RateLimited),
        ] {
            let b = body(id);
            let c = classify(&Failure::http(429, "").with_body(b.as_str()));
            assert_eq!(
                (c.category, c.transient),
                (want, want == RateLimited),
                "{id}"
            );
        }
    }
}

/// What the tables' test modules share: each failure decides its category and its retry.
#[cfg(test)]
pub(crate) mod decides {
    use crate::category::Category;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// Each failure decides `want`, retried as that category is.
    pub(crate) fn each(cases: Vec<(Failure, Category)>) {
        for (f, want) in cases {
            let c = classify(&f);
            assert_eq!(
                (c.category, c.transient),
                (want, want.is_transient()),
                "{f:?}"
            );
        }
    }

    /// Each failure decides `want`, with the retry decision given.
    pub(crate) fn each_with(cases: Vec<(Failure, Category, bool)>) {
        for (f, want, transient) in cases {
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (want, transient), "{f:?}");
        }
    }
}
