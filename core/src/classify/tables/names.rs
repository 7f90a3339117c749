//! The words of exception class names, as wrappers, SDKs and HTTP clients name their failures
//! (issue 20: a failure printed by a layer nobody here has read yet). A class name is the
//! author's own one-word verdict on the failure: `InvokeServerUnavailableError`,
//! `TransientAiException`, `HttpTimeoutException`, `RateLimitExceededException`. Its words
//! carry over to classes no table lists, so a name the exact table (`tables::CLASSES`) does not
//! know is read by the words it is built from (`classify::names`).
//!
//! Each row is one word (lower-case, as it appears inside the run-together name) and the nature
//! it names, with the class names of public sources that use it. Rows are tried in order on the
//! class's short name without its `Error`/`Exception` suffix; the first that occurs decides.
//! Negations and permanent natures come first, so `NonTransientAiException` is never read as
//! `Transient...` and `ContextWindowExceededError` never as a rate.

use crate::category::Category::{self, *};

/// One word of a class name and the nature it names.
pub type NameWord = (&'static str, Category);

/// Words of class names, in priority order.
pub const WORDS: &[NameWord] = &[
    // Negations of a transient nature: Spring AI `NonTransientAiException` (4xx, spring-ai-retry
    // RetryUtils), `NonRetryableError` / `NonRetriableError` (Temporal, Celery, Inngest),
    // `PermanentError` / `FatalError` (common retry libraries' give-up classes).
    ("nontransient", ClientError),
    ("nonretryable", ClientError),
    ("nonretriable", ClientError),
    ("notretryable", ClientError),
    ("permanent", ClientError),
    ("fatal", ClientError),
    // Input too long for the model: LiteLLM `ContextWindowExceededError`
    // (litellm/exceptions.py), LangChain4j/ Spring AI users' `ContextLengthExceededException`,
    // `PromptTooLongError`, `TokenLimitExceeded`-style names are read by their words below only
    // when they say context or prompt.
    ("contextwindow", ContextOverflow),
    ("contextlength", ContextOverflow),
    ("contextoverflow", ContextOverflow),
    ("prompttoolong", ContextOverflow),
    ("inputtoolong", ContextOverflow),
    // A content refusal: LiteLLM `ContentPolicyViolationError`, openai-python
    // `ContentFilterFinishReasonError`, Google `BlockedPromptException` / `StopCandidateException`
    // are listed exactly; `SafetyError`, `ModerationError` by their words.
    ("contentpolicy", ContentFiltered),
    ("contentfilter", ContentFiltered),
    ("moderation", ContentFiltered),
    ("safety", ContentFiltered),
    // Money, not time: LiteLLM `BudgetExceededError` (litellm/exceptions.py), OpenAI's
    // `insufficient_quota` as SDKs name it (`InsufficientQuotaError`), `InsufficientBalance`,
    // `PaymentRequiredException`, `BillingError`, `CreditsExhausted`.
    ("budgetexceeded", PaymentRequired),
    ("insufficientquota", PaymentRequired),
    ("insufficientbalance", PaymentRequired),
    ("insufficientfunds", PaymentRequired),
    ("insufficientcredit", PaymentRequired),
    ("paymentrequired", PaymentRequired),
    ("billing", PaymentRequired),
    ("credits", PaymentRequired),
    // A missing key is set-up, a wrong one is refused: Vercel AI SDK `LoadAPIKeyError`
    // (packages/provider/src/errors/load-api-key-error.ts: "API key is missing"); Dify
    // `InvokeAuthorizationError` (api/core/model_runtime/errors/invoke.py), openai-python and
    // LiteLLM `AuthenticationError`, Go/Java `UnauthorizedException`, `InvalidApiKeyError`.
    ("loadapikey", Configuration),
    ("missingapikey", Configuration),
    ("authentication", Unauthorized),
    ("authorization", Unauthorized),
    ("unauthorized", Unauthorized),
    ("unauthenticated", Unauthorized),
    ("invalidapikey", Unauthorized),
    ("invalidkey", Unauthorized),
    ("invalidtoken", Unauthorized),
    ("permissiondenied", Forbidden),
    ("accessdenied", Forbidden),
    ("forbidden", Forbidden),
    // Vercel AI SDK `NoSuchModelError` (packages/provider/src/errors/no-such-model-error.ts),
    // openai-python / LiteLLM `NotFoundError`, Ollama clients' `ModelNotFoundError`.
    // A missing module or file is the installation's (Python `ModuleNotFoundError`,
    // `ImportError`, `FileNotFoundError`): read before the generic "not found".
    ("modulenotfound", Configuration),
    ("importerror", Configuration),
    ("filenotfound", Configuration),
    ("nosuchmodel", NotFound),
    ("notfound", NotFound),
    // An unusable answer: Vercel AI SDK `JSONParseError`, `EmptyResponseBodyError`,
    // `InvalidResponseDataError`, `NoContentGeneratedError`; openai-python
    // `APIResponseValidationError`.
    ("jsonparse", InvalidResponse),
    ("emptyresponse", InvalidResponse),
    ("invalidresponse", InvalidResponse),
    ("responsevalidation", InvalidResponse),
    ("nocontentgenerated", InvalidResponse),
    // The request's own fault, read after every more specific word above: Vercel AI SDK
    // `InvalidPromptError`, `InvalidArgumentError`, `UnsupportedFunctionalityError`; LiteLLM
    // `UnsupportedParamsError`, `BadRequestError`, `InvalidRequestError`; Dify
    // `InvokeBadRequestError`; `UnprocessableEntityError` (openai-python).
    ("unprocessable", Unprocessable),
    // (batch 32a) Vercel AI SDK `UnsupportedModelVersionError`: a model package built for
    // another major of the SDK's specification, a set-up fault no request reaches.
    ("unsupportedmodelversion", Configuration),
    ("unsupported", BadRequest),
    ("invalidprompt", BadRequest),
    ("invalidargument", BadRequest),
    ("invalidrequest", BadRequest),
    ("invalidparam", BadRequest),
    ("badrequest", BadRequest),
    // Rust's `io::ErrorKind::InvalidData` (a reader got bytes it cannot decode: the answer's).
    ("invaliddata", InvalidResponse),
    // Any other "Invalid..." names the request's or the set-up's fault, never a passing one
    // (Azure's `InvalidCapacity`, AWS `InvalidParameterException`, `InvalidModelError`).
    ("invalid", BadRequest),
    // Throttles: Dify `InvokeRateLimitError`, openai-python / LiteLLM `RateLimitError`, AWS
    // `ThrottlingException` / `TooManyRequestsException`, Google `ResourceExhausted`,
    // `RateLimitExceededException` (.NET and Java clients), Azure `RequestRateTooLarge`.
    ("ratelimit", RateLimited),
    ("throttl", RateLimited),
    ("toomanyrequests", RateLimited),
    ("resourceexhausted", RateLimited),
    ("requestratetoolarge", RateLimited),
    // Anthropic `OverloadedError` (anthropic-sdk-typescript), `ModelOverloadedError`,
    // `CapacityExceededError` (Groq's capacity_exceeded).
    ("overload", Overloaded),
    ("capacity", Overloaded),
    // A gateway's timeout is a 5xx (504), as its status is read; any other timeout is a
    // timeout: java.net.http `HttpTimeoutException` / `HttpConnectTimeoutException`,
    // `SocketTimeoutException`, httpx `ReadTimeout`, aiohttp `ServerTimeoutError`, gRPC
    // `DeadlineExceeded`, Go's `DeadlineExceeded`, .NET `TimeoutException`.
    ("gatewaytimeout", ServerError),
    ("timeout", Timeout),
    ("timedout", Timeout),
    ("deadlineexceeded", Timeout),
    // The server failed or is away: Dify `InvokeServerUnavailableError`, LiteLLM
    // `ServiceUnavailableError`, `BadGatewayError`, `InternalServerError`; Google
    // `ServiceUnavailable`, `InternalServerError`; vLLM `EngineDeadError`; `UpstreamError`.
    ("serviceunavailable", ServerError),
    ("serverunavailable", ServerError),
    ("unavailable", ServerError),
    ("badgateway", ServerError),
    ("internalserver", ServerError),
    ("servererror", ServerError),
    ("upstream", ServerError),
    ("enginedead", ServerError),
    // A response cut after it began: OkHttp `StreamResetException` ("stream was reset"),
    // aiohttp `ClientPayloadError` / `TransferEncodingError` / `ContentLengthError`, requests
    // `ChunkedEncodingError`, http.client `IncompleteRead`, Java's `EOFException`, .NET
    // `HttpIOException` (ResponseEnded), `PrematureCloseError` (node-fetch "Premature close").
    ("streamreset", StreamInterrupted),
    ("streaminterrupt", StreamInterrupted),
    ("streamclosed", StreamInterrupted),
    ("incompleteread", StreamInterrupted),
    ("chunkedencoding", StreamInterrupted),
    ("transferencoding", StreamInterrupted),
    ("contentlength", StreamInterrupted),
    ("clientpayload", StreamInterrupted),
    ("prematureend", StreamInterrupted),
    ("responseended", StreamInterrupted),
    ("unexpectedeof", StreamInterrupted),
    // Not reached, or dropped: Dify `InvokeConnectionError`, openai-python
    // `APIConnectionError`, Java `ConnectException` / `SocketException` /
    // `NoRouteToHostException` / `ConnectionShutdownException` (OkHttp), aiohttp
    // `ServerDisconnectedError` / `ClientConnectorError`, httpx `ConnectError` /
    // `RemoteProtocolError`, .NET `HttpRequestException` is no word of this (read by its text).
    // Read through the network table, which tells a TLS or DNS set-up mistake from a passing
    // failure (CONTRACT §6).
    ("disconnect", Connection),
    ("connection", Connection),
    ("connect", Connection),
    ("network", Connection),
    ("socket", Connection),
    ("noroutetohost", Connection),
    ("unreachable", Connection),
    ("remoteprotocol", Connection),
    // A transport's own failure: Elixir Mint `TransportError` ("%Mint.TransportError{reason:
    // :closed}"), gRPC-dotnet and Google clients' `TransportError`.
    ("transport", Connection),
    // Rust's `io::ErrorKind::BrokenPipe`, Python's `BrokenPipeError`.
    ("brokenpipe", Connection),
    // reactor-netty `PrematureCloseException` ("Connection prematurely closed BEFORE
    // response"), node-fetch's premature close: the connection closed under the exchange.
    ("prematureclose", Connection),
    // A host that does not resolve is a set-up mistake (CONTRACT §6, as Go's "no such host" and
    // Node's ENOTFOUND rows): Java `UnknownHostException`, `NameResolutionError` (urllib3).
    ("unknownhost", Configuration),
    ("nameresolution", Configuration),
    // A certificate or handshake: Java `SSLHandshakeException`, `CertificateException`,
    // Python `SSLCertVerificationError`.
    ("sslhandshake", Configuration),
    ("certificate", Configuration),
    ("sslcert", Configuration),
    // The author's own word that it passes: Spring AI `TransientAiException` (spring-ai-retry),
    // `RetryableError` / `RetriableError`, `TryAgain` (openai-python < 1.0), `TemporaryError`.
    ("transient", ServerError),
    ("retryable", ServerError),
    ("retriable", ServerError),
    ("tryagain", ServerError),
    ("temporar", ServerError),
    // (batch 30a) An answer the client could not read back: openai-php
    // `OpenAI\Exceptions\UnserializableResponse` (its message is only PHP's json_last_error_msg,
    // "Syntax error"), `UnparsableResponse`-style names.
    ("unserializable", InvalidResponse),
    ("unparsable", InvalidResponse),
    ("unparseable", InvalidResponse),
];

/// Suffixes that mark a word as a class name (`...Error`, `...Exception`). A name without one
/// is read too when it is CamelCase (two capitals or more, letters and digits only): Google's
/// `api_core.exceptions` (`PermissionDenied`, `ServiceUnavailable`, `DeadlineExceeded`),
/// httpx's `ReadTimeout`, http.client's `RemoteDisconnected` and `IncompleteRead`.
pub const CLASS_SUFFIXES: &[&str] = &["Exception", "Error", "Fault", "Failure"];

/// Words that name only what failed, not how: a name without a class suffix built on them is
/// a thing, not a failure (`WebSocket`, `ConnectionString`, `NetworkPolicy`), so they are read
/// only in a name with a suffix (`ConnectionError`, `SocketException`).
pub const NEED_SUFFIX: &[&str] = &[
    "connection",
    "connect",
    "network",
    "socket",
    "transport",
    "upstream",
];

/// Class names that say nothing of the failure's nature: a base class or a wrapper's own, whose
/// words ("Invoke", "Plugin", "Http", "Api") are no verdict. Listed so a reader sees why they
/// are skipped; the word table would find no row in them anyway, except where noted.
pub const SILENT: &[&str] = &[
    // Dify's base and plugin wrappers (api/core/model_runtime/errors/invoke.py,
    // api/core/plugin/impl/exc.py): their text carries the inner failure.
    "InvokeError",
    "PluginInvokeError",
    "PluginDaemonInternalServerError", // the daemon's wrapper of any plugin failure
    // Vercel AI SDK `RetryError` ("Failed after 3 attempts. Last error: ...") and `AISDKError`:
    // the last error is in the text.
    "RetryError",
    "AISDKError",
    // LiteLLM's `APIError` and `MidStreamFallbackError` carry any status.
    "APIError",
    "MidStreamFallbackError",
];
