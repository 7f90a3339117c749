//! The vocabularies of the wrappers people see failures through (issue 20): apps, coding agents
//! and frameworks that map a provider's error onto their own words and print those, not the
//! provider's status or body. Read from each wrapper's own error map, not from reports, so the
//! rows carry over to any report printed by the same wrapper, whatever provider is behind it.
//!
//! Each row is one template or one type name the wrapper prints, with the file it comes from and,
//! where the wrapper retries on its own, that fact: a wrapper's retry flag is its author's verdict
//! on whether the failure passes. Only the wrapper's own fixed words are rows; the provider text a
//! template wraps ("Rate limit exceeded: {details}") is read by the main tables as before, and a
//! permanent nature it names still wins over a wrapper's transient frame (`text::permanent` is
//! read before `text::transient`).
//!
//! Sources (path in the repository named):
//! - Zed `LanguageModelCompletionError` Display texts: zed-industries/zed
//!   crates/language_model/src/language_model.rs.
//! - goose `ProviderError` Display texts and its reqwest mapping: block/goose
//!   crates/goose/src/providers/errors.rs.
//! - aider's litellm exception table (name, retry flag, description): Aider-AI/aider
//!   aider/exceptions.py.
//! - n8n `NodeApiError` messages per status: n8n-io/n8n
//!   packages/workflow/src/errors/node-api.error.ts.
//! - Vercel AI SDK `NoObjectGeneratedError` messages: vercel/ai
//!   packages/ai/src/generate-object (and core/generate-object in older releases).
//! - LobeChat `AgentRuntimeErrorType`: lobehub/lobe-chat packages/model-runtime/src/error.ts;
//!   its Chinese texts for them and for HTTP statuses: src/locales/default/error.ts.
//! - LibreChat `ErrorTypes` and `ViolationTypes`: danny-avila/LibreChat
//!   packages/data-provider/src/config.ts.
//! - Codex CLI `CodexErr` Display texts: openai/codex codex-rs/core/src/error.rs.
//! - Gemini CLI quota errors and fallback texts: google-gemini/gemini-cli
//!   packages/core/src/utils/googleQuotaErrors.ts (`TerminalQuotaError`, `RetryableQuotaError`),
//!   packages/cli/src/ui/hooks/useQuotaAndFallback.ts.
//! - GitHub Copilot Chat's texts per fetch result: microsoft/vscode-copilot-chat
//!   src/platform/chat/common/commonTypes.ts.
//! - Roo Code's error texts: RooCodeInc/Roo-Code src/i18n/locales/en/common.json.
//! - open-webui `ERROR_MESSAGES`: open-webui/open-webui backend/open_webui/constants.py.
//! - OpenHands exceptions (default messages; `LLMNoResponseError` is in its LLM retry list):
//!   All-Hands-AI/OpenHands openhands/core/exceptions.py and the SDK's
//!   openhands/sdk/llm/exceptions/types.py.
//! - Semantic Kernel (Python) service exceptions: microsoft/semantic-kernel
//!   python/semantic_kernel/exceptions/service_exceptions.py.
//! - LangChain4j exceptions: langchain4j/langchain4j
//!   langchain4j-core/src/main/java/dev/langchain4j/exception/ (`UnresolvedModelServerException`
//!   extends `NonRetriableException`).

use super::names::NameWord;
use super::{doc, said, Envelope, Phrase, ProviderTable, Read};
use crate::category::Category::*;

/// Permanent natures in a wrapper's fixed words. Read after the main permanent tables, so a
/// provider's own wording (a quota, a context length) wins over the wrapper's frame.
pub const PERMANENT: &[Phrase] = &[
    // Zed: `BadRequestFormat` "invalid request format to {provider}'s API: {message}" (a 400).
    said("invalid request format to", BadRequest),
    // Zed: `AuthenticationError` "authentication error with {provider}'s API: {message}" (401);
    // goose: `ProviderError::Authentication` "Authentication error: {0}" (telemetry "auth").
    said("authentication error", Unauthorized),
    // Zed: `PermissionError` "Permission error with {provider}'s API: {message}" (403).
    said("permission error with", Forbidden),
    // Zed: `ApiEndpointNotFound` "language model provider API endpoint not found" (404).
    said("api endpoint not found", NotFound),
    // Zed: `DeserializeResponse` "error deserializing {provider} API response": the reply
    // came and could not be read.
    said("error deserializing", InvalidResponse),
    // Zed: `SerializeRequest` "error serializing request to {provider} API", `BuildRequestBody`
    // "error building request body to {provider} API": the client's own code, before any call.
    said("error serializing request", Programming),
    said("error building request body", Programming),
    // goose: `ProviderError::NotImplemented` "Unsupported operation: {0}".
    said("unsupported operation", BadRequest),
    // aider: AuthenticationError, retry False, "The API provider is not able to authenticate
    // you. Check your API key."
    said("not able to authenticate you", Unauthorized),
    // aider: ContentPolicyViolationError "The API provider has refused the request due to a
    // safety policy about the content." (aider retries it; the provider's refusal repeats, so
    // the nature is the content's.)
    said("due to a safety policy", ContentFiltered),
    // n8n NodeApiError: 401 "Authorization failed - please check your credentials".
    said("authorization failed", Unauthorized),
    // n8n NodeApiError: 404 "The resource you are requesting could not be found".
    said("resource you are requesting", NotFound),
    // n8n NodeApiError: 4XX "Your request is invalid or could not be processed by the service".
    said("your request is invalid", ClientError),
    // Vercel AI SDK `NoObjectGeneratedError`: "No object generated: response did not match
    // schema." / "could not parse the response." / "the tool was not called.": the model's
    // structured output failed the caller's schema (retried only when configured).
    said("no object generated", Validation),
    // OpenHands SDK `LLMAuthenticationError` "Invalid or missing API credentials",
    // `LLMBadRequestError` "Bad request to LLM provider".
    said("invalid or missing api credentials", Unauthorized),
    said("bad request to llm provider", BadRequest),
    // open-webui `OPENAI_NOT_FOUND` "OpenAI API was not found" (the configured API base answers
    // 404); its `OLLAMA_NOT_FOUND` "WebUI could not connect to Ollama" is a connection (below).
    said("api was not found", NotFound),
    // LobeChat's texts (src/locales/default/error.ts): InvalidBedrockCredentials "Bedrock
    // 鉴权未通过" (authentication not passed), LocationNotSupportError "你的所在位置不支持此模型服务"
    // (your location does not support this model service), InvalidAccessCode "密码不正确或为空"
    // (the app's access password wrong or empty), InvalidOllamaArgs "Ollama 配置不正确"
    // (the configuration is not right).
    said("鉴权未通过", Unauthorized),
    said("所在位置不支持", Forbidden),
    said("密码不正确或为空", Unauthorized),
    said("配置不正确", Configuration),
    // Codex `EncryptedContentInvalid` "encrypted reasoning content could not be verified -
    // conversation may need to restart": the same history fails the same way.
    said("reasoning content could not be verified", BadRequest),
    // Codex `UsageNotIncluded` "To use Codex with your ChatGPT plan, upgrade to Plus": the plan
    // does not include it.
    said("upgrade to plus", PaymentRequired),
    // Copilot Chat `QuotaExceeded`: "You've exhausted your premium model quota. Please enable
    // additional paid premium requests ... or wait for your allowance to renew", and
    // `overage_limit_reached` "You cannot accrue additional premium requests at this time": a
    // plan's monthly allowance, no retry outlasts it.
    said("premium model quota", PaymentRequired),
    said("additional premium requests", PaymentRequired),
    // Copilot Chat `NotFound`: "Sorry, the resource was not found."
    said("resource was not found", NotFound),
    // Roo Code: Gemini "(Thinking complete, but no output was generated.)", Cerebras "API
    // Error: No response body": an answer with nothing in it.
    said("no output was generated", InvalidResponse),
    said("no response body", InvalidResponse),
    // Roo Code's Claude Code provider: "API keys and subscription plans allow different
    // models. Make sure the selected model is included in your plan."
    said("included in your plan", Forbidden),
];

/// Transient natures in a wrapper's fixed words. Read before the main transient tables: the
/// template is the wrapper's whole verdict, more specific than a word it quotes ("servers are
/// down or overloaded" after aider's "timed out without returning a response").
pub const TRANSIENT: &[Phrase] = &[
    // aider: Timeout, retry True, "The API provider timed out without returning a response.
    // They may be down or overloaded."
    said("timed out without returning a response", Timeout),
    // Zed: `ApiReadResponseError` "I/O error reading response from {provider}'s API": the
    // answer broke while it was read.
    said("error reading response from", StreamInterrupted),
    // Zed: `HttpSend` "error sending HTTP request to {provider} API": no answer came.
    said("error sending http request", Connection),
    // goose's reqwest mapping: "Could not connect to {host} — check your network connection
    // and try again." (its "Request timed out — ..." is read as a timeout by the main tables).
    said("could not connect to", Connection),
    // n8n NodeApiError: 5XX "The service failed to process your request", 500 "The service was
    // not able to process your request".
    said("service failed to process your request", ServerError),
    said("service was not able to process your request", ServerError),
    // OpenHands `LLMNoResponseError` "LLM did not return a response. This is only seen in
    // Gemini models so far.": an empty answer OpenHands retries (LLM_RETRY_EXCEPTIONS).
    said("llm did not return a response", ServerError),
    // OpenHands SDK defaults: `LLMTimeoutError` "LLM request timed out" (read as a timeout by
    // the main tables), `LLMServiceUnavailableError` "LLM service unavailable".
    said("llm service unavailable", ServerError),
    // Vercel AI SDK provider-utils `handleFetchError`: "Cannot connect to API: {cause}", an
    // `APICallError` with isRetryable true (the fetch failed before any answer).
    said("cannot connect to api", Connection),
    // LobeChat's 429 text "很抱歉，您的请求太多，服务器有点累了，请稍后再试" (too many requests of
    // yours; read before the main tables' bare "try again later").
    said("请求太多", RateLimited),
    // Codex `ResponseStreamFailed` "Error while reading the server response: {reqwest error}"
    // (its protocol kind: ResponseStreamConnectionFailed).
    said("error while reading the server response", StreamInterrupted),
    // Gemini CLI's capacity fallback: "🚦Pardon Our Congestion! It looks like {model} is very
    // popular at the moment. Please retry again later."
    said("pardon our congestion", Overloaded),
    said("very popular at the moment", Overloaded),
    // (batch 20) LiteLLM's stream chunk repr when the provider ended the stream in error
    // ("ModelResponseStream(... finish_reason='error' ...)", OpenRouter's "finish_reason":
    // "error" chunk, litellm streaming_handler): the stream ended early, whatever exception
    // class the wrapper chose.
    said("finish_reason='error'", StreamInterrupted),
    said("'finish_reason': 'error'", StreamInterrupted),
    said("\"finish_reason\":\"error\"", StreamInterrupted),
    // (batch 22) Open WebUI's frontend when the fetch to a provider failed with no answer
    // ("OpenAI: Network Problem", "Open AI: Network Problem", src/lib/apis/openai): no
    // connection was made.
    said("network problem", Connection),
    // Its backend's words when the call to the provider raised (backend/open_webui/
    // constants.py and routers/openai.py, ollama.py: "Open WebUI: Server Connection Error",
    // sent with the upstream's status when one came, which then decides).
    said("server connection error", Connection),
    // ollama-js `AbortableAsyncIterator` (src/utils.ts): "Did not receive done or success
    // response in stream." when the NDJSON stream ends before its final `done` message
    // (through Flowise, LangChain.js and every app on ollama-js).
    said(
        "did not receive done or success response",
        StreamInterrupted,
    ),
    // (batch 27) one-api / new-api's relay (`relay/adaptor/common.go`, `relay/channel/
    // api_request.go`: "do request failed: %w" around `http.Client.Do`'s error; new-api's code
    // `do_request_failed`, 请求上游失败, as `hosts.rs` reads it): the relay's upstream did not
    // answer, a server-side failure to the caller, as the corpus labels it since batch 22.
    said("do request failed", ServerError),
    // (batch 30) An app's advice to check the network, whatever catch-all it sits in
    // ("An error occurred while communicating with OpenAI. Please check your internet
    // connection, or try again later."): the app saw the connection fail
    // (read before the main tables' bare "try again later"). "check your network connection"
    // is no such row: apps put it beside stated timeouts and cut streams, which decide.
    said("check your internet connection", Connection),
];

/// (batch 22) A retry loop's own give-up that names no cause: Azure.Core's `RetryPolicy`
/// (Azure SDK for .NET, under Semantic Kernel) throws an AggregateException "Retry failed
/// after 4 tries. Retry settings can be adjusted in ClientOptions.Retry or by configuring a
/// custom retry policy in ClientOptions.RetryPolicy." with the attempts' errors left inside.
/// It retries only transient statuses and transport faults, so a 4xx printed around it is an
/// app's envelope, not the failure: the failure is unknown. A give-up that quotes its last
/// error ("Retry failed after 3 attempts, last err: ...") is read by that error instead.
pub const GIVE_UP_WITHOUT_CAUSE: &[&str] = &["retry settings can be adjusted in clientoptions"];

/// (batch 25) A stock error page that names overload only as one guess among two: Werkzeug's
/// (Flask's) `InternalServerError` description, "The server encountered an internal error and
/// was unable to complete your request. Either the server is overloaded or there is an error in
/// the application." The page is a plain 500 (`says_overloaded` skips the guess).
///
/// (batch 29a) Cloudflare's 5xx pages in their problem-details form guess the same way (the
/// 502's "The origin web server returned an invalid or incomplete response to Cloudflare. This
/// typically indicates the origin is overloaded or misconfigured.", cachix/devenv#3179;
/// developers.cloudflare.com cloudflare-5xx-errors/error-502): a bad gateway, not an overload.
pub const HEDGED_OVERLOAD: &[&str] = &[
    "either the server is overloaded or there",
    "is overloaded or misconfigured",
];

/// Words of wrappers' own type names (`names::category` reads them before `tables::names`
/// WORDS, whose "invalid" would read an invalid key as a bad request). Lower-case, as found
/// inside the run-together name.
pub const NAME_WORDS: &[NameWord] = &[
    // LobeChat `InvalidProviderAPIKey`: the provider's key (not the request's "invalid").
    ("providerapikey", Unauthorized),
    // LobeChat `InvalidBedrockCredentials`, `InvalidVertexCredentials`.
    ("credentials", Unauthorized),
    // LobeChat `QuotaLimitReached`: a key's request or token quota for now (its locale text
    // asks to raise the quota or try again later); `InsufficientQuota` is the money one
    // (`tables::names` "insufficientquota").
    ("quotalimit", RateLimited),
    // LobeChat `LocationNotSupportError`: the provider refuses the caller's region.
    ("locationnotsupport", Forbidden),
    // Gemini CLI: `TerminalQuotaError` (a daily quota, or credits: no retry) and
    // `RetryableQuotaError` (a per-minute quota, with its delay); read before `tables::names`
    // "retryable".
    ("terminalquota", PaymentRequired),
    ("retryablequota", RateLimited),
    // Semantic Kernel `ServiceInvalidAuthError` (not the "invalid" of a request), and
    // `ServiceInitializationError`: the service object could not be built (set-up).
    ("invalidauth", Unauthorized),
    ("serviceinitialization", Configuration),
    // LangChain4j `UnresolvedModelServerException` (a NonRetriableException: the model
    // server's host does not resolve, CONTRACT §6's set-up mistake).
    ("unresolved", Configuration),
    // The model's tool call does not fit the tools: OpenHands `FunctionCallValidationError`,
    // `FunctionCallNotExistsError`; LangChain4j `ToolArgumentsException`. The model's output,
    // retried only when configured.
    ("functioncallvalidation", Validation),
    ("functioncallnotexists", Validation),
    ("toolarguments", Validation),
];

/// Error type codes of apps that answer their own front end with `{"type": "<code>", ...}`
/// (LibreChat), read as a provider's codes are; after every provider table, so a provider's own
/// code wins.
pub const TABLES: &[ProviderTable] = &[ProviderTable {
    provider: "LibreChat (app error types)",
    source: "github.com/danny-avila/LibreChat packages/data-provider/src/config.ts (ErrorTypes, ViolationTypes)",
    read: Read::Whole,
    envelope: Envelope::TopLevel,
    rows: &[
        // ErrorTypes: the user-provided key is absent, expired or refused.
        doc(0, "no_user_key", "No User-provided Key", Configuration),
        doc(0, "expired_user_key", "Expired User-provided Key", Unauthorized),
        doc(0, "invalid_user_key", "Invalid User-provided Key", Unauthorized),
        doc(0, "no_base_url", "No Base URL Provided", Configuration),
        doc(0, "moderation", "Moderation error", ContentFiltered),
        doc(0, "input_length", "Prompt exceeds max length", ContextOverflow),
        doc(0, "no_system_messages", "", BadRequest),
        doc(0, "google_tool_conflict", "", BadRequest),
        doc(0, "invalid_agent_provider", "", Configuration),
        doc(0, "missing_model", "Missing model selection", Configuration),
        doc(0, "auth_failed", "Generic Authentication failure", Unauthorized),
        doc(0, "refusal", "Model refused to respond", ContentFiltered),
        // ViolationTypes: the app's own limits on its users.
        doc(0, "token_balance", "", PaymentRequired),
        doc(0, "concurrent", "", RateLimited),
        doc(0, "message_limit", "", RateLimited),
    ],
}];

#[cfg(test)]
mod tests {
    use crate::category::Category::{self, *};
    use crate::classify::classify;
    use crate::failure::Failure;

    fn said(text: &str) -> (Category, bool) {
        let c = classify(&Failure::new(text));
        (c.category, c.transient)
    }

    /// Each wrapper's template, with neutral words where it wraps the provider's text: the
    /// wrapper's own words decide.
    #[test]
    fn wrapper_templates_from_sources() {
        let cases: &[(&str, Category)] = &[
            // Zed (crates/language_model/src/language_model.rs)
            ("invalid request format to Anthropic's API: messages.1.content: field required", BadRequest),
            ("authentication error with Anthropic's API: refused", Unauthorized),
            ("Permission error with Anthropic's API: refused", Forbidden),
            ("language model provider API endpoint not found", NotFound),
            ("error deserializing Anthropic API response", InvalidResponse),
            ("error serializing request to Anthropic API", Programming),
            ("error building request body to OpenAI API", Programming),
            ("I/O error reading response from Anthropic's API", StreamInterrupted),
            ("error sending HTTP request to Anthropic API", Connection),
            // Vercel AI SDK handleFetchError
            ("AI_APICallError: Cannot connect to API: other side closed", Connection),
            // open-webui constants.py
            ("WebUI could not connect to Ollama", Connection),
            ("OpenAI API was not found", NotFound),
            // Codex error.rs
            ("encrypted reasoning content could not be verified - conversation may need to restart", BadRequest),
            ("To use Codex with your ChatGPT plan, upgrade to Plus: https://openai.com/chatgpt/pricing.", PaymentRequired),
            ("Error while reading the server response: error decoding response body, request id: r1", StreamInterrupted),
            // Copilot Chat commonTypes.ts
            ("You've exhausted your premium model quota. Please enable additional paid premium requests or wait for your allowance to renew.", PaymentRequired),
            ("You cannot accrue additional premium requests at this time. Please contact GitHub Support to continue using Copilot.", PaymentRequired),
            ("Sorry, the resource was not found.", NotFound),
            ("Sorry, you have exhausted this model's rate limit. Please wait a moment before trying again, or switch to Auto.", RateLimited),
            ("Sorry, the upstream model provider is currently experiencing high demand. Please try again later or consider switching to Auto.", Overloaded),
            // Roo Code common.json
            ("(Thinking complete, but no output was generated.)", InvalidResponse),
            ("Cerebras API Error: No response body", InvalidResponse),
            ("API keys and subscription plans allow different models. Make sure the selected model is included in your plan.", Forbidden),
            // Gemini CLI
            ("🚦Pardon Our Congestion! It looks like gemini-2.5-pro is very popular at the moment.\nPlease retry again later.", Overloaded),
            ("TerminalQuotaError", PaymentRequired),
            ("RetryableQuotaError", RateLimited),
            ("⚡ You have reached your daily gemini-2.5-pro quota limit.", PaymentRequired),
            // LobeChat src/locales/default/error.ts
            ("Bedrock 鉴权未通过，请检查 AccessKeyId/SecretAccessKey 后重试", Unauthorized),
            ("很抱歉，你的所在位置不支持此模型服务，可能是由于地区限制或服务未开通。", Forbidden),
            ("密码不正确或为空，请输入正确的访问密码，或者添加自定义 API Key", Unauthorized),
            ("Ollama 配置不正确，请检查 Ollama 配置后重试", Configuration),
            ("很抱歉，您的请求太多，服务器有点累了，请稍后再试", RateLimited),
            // goose (crates/goose/src/providers/errors.rs)
            ("Authentication error: request refused", Unauthorized),
            ("Unsupported operation: embeddings", BadRequest),
            ("Could not connect to api.openai.com — check your network connection and try again.", Connection),
            ("Request timed out — check your network connection and try again.", Timeout),
            // aider (aider/exceptions.py)
            ("The API provider is not able to authenticate you. Check your API key.", Unauthorized),
            ("The API provider has refused the request due to a safety policy about the content.", ContentFiltered),
            ("The API provider timed out without returning a response. They may be down or overloaded.", Timeout),
            // n8n (packages/workflow/src/errors/node-api.error.ts)
            ("Authorization failed - please check your credentials", Unauthorized),
            ("The resource you are requesting could not be found", NotFound),
            ("Your request is invalid or could not be processed by the service", ClientError),
            ("The service failed to process your request", ServerError),
            ("The service was not able to process your request", ServerError),
            // Vercel AI SDK NoObjectGeneratedError
            ("AI_NoObjectGeneratedError: No object generated: response did not match schema.", Validation),
            ("No object generated: could not parse the response.", Validation),
        ];
        for (text, want) in cases {
            let (got, transient) = said(text);
            assert_eq!(got, *want, "{text}");
            assert_eq!(transient, want.is_transient(), "{text}");
        }
    }

    /// A permanent nature the wrapped provider text names still wins over a transient frame.
    #[test]
    fn wrapped_permanent_text_wins() {
        assert_eq!(
            said("I/O error reading response from OpenAI's API: insufficient_quota").0,
            PaymentRequired
        );
        assert!(!said("Could not connect to api.example.com: certificate verify failed").1);
        assert_eq!(
            said("Cannot connect to API: getaddrinfo ENOTFOUND api.example.com").0,
            Configuration
        );
    }

    /// LobeChat's `AgentRuntimeErrorType` names printed alone (packages/model-runtime/src/error.ts).
    #[test]
    fn lobechat_type_names() {
        let cases: &[(&str, Category)] = &[
            ("InvalidProviderAPIKey", Unauthorized),
            ("InvalidBedrockCredentials", Unauthorized),
            ("InvalidVertexCredentials", Unauthorized),
            ("QuotaLimitReached", RateLimited),
            ("InsufficientQuota", PaymentRequired),
            ("ExceededContextWindow", ContextOverflow),
            ("ModelNotFound", NotFound),
            ("PermissionDenied", Forbidden),
            ("LocationNotSupportError", Forbidden),
        ];
        for (text, want) in cases {
            assert_eq!(said(text).0, *want, "{text}");
        }
        // The generic business error says nothing by itself.
        assert_eq!(said("ProviderBizError").0, Unknown);
    }

    /// Exception names of agent frameworks printed before their text.
    #[test]
    fn framework_exception_names() {
        let cases: &[(&str, Category)] = &[
            // OpenHands
            ("LLMContextWindowExceedError: Conversation history longer than LLM context window limit. Consider turning on enable_history_truncation config to avoid this error", ContextOverflow),
            ("LLMNoResponseError: LLM did not return a response. This is only seen in Gemini models so far.", ServerError),
            ("Invalid or missing API credentials", Unauthorized),
            ("LLM service unavailable", ServerError),
            ("Bad request to LLM provider", BadRequest),
            ("FunctionCallValidationError: Missing required parameters for function 'str_replace_editor'", Validation),
            ("FunctionCallNotExistsError: Tool foo is not registered", Validation),
            // Semantic Kernel
            ("ServiceInvalidAuthError: Failed to authenticate", Unauthorized),
            ("ServiceInitializationError: The OpenAI model ID is required", Configuration),
            ("ServiceContentFilterException: The request was filtered", ContentFiltered),
            // LangChain4j
            ("dev.langchain4j.exception.UnresolvedModelServerException: java.nio.channels.UnresolvedAddressException", Configuration),
            ("dev.langchain4j.exception.ToolArgumentsException: bad arguments", Validation),
            ("dev.langchain4j.exception.RateLimitException: slow down", RateLimited),
        ];
        for (text, want) in cases {
            let (got, transient) = said(text);
            assert_eq!(got, *want, "{text}");
            assert_eq!(transient, want.is_transient(), "{text}");
        }
    }

    /// LibreChat's `{"type": ...}` answers (packages/data-provider/src/config.ts).
    #[test]
    fn librechat_types() {
        let cases: &[(&str, Category)] = &[
            (r#"{"type":"no_user_key"}"#, Configuration),
            (
                r#"{"type":"expired_user_key","expiredAt":"2024-01-01"}"#,
                Unauthorized,
            ),
            (r#"{"type":"invalid_user_key"}"#, Unauthorized),
            (r#"{"type":"no_base_url"}"#, Configuration),
            (r#"{"type":"moderation","info":"flagged"}"#, ContentFiltered),
            (
                r#"{"type":"INPUT_LENGTH","info":"too long"}"#,
                ContextOverflow,
            ),
            (r#"{"type":"token_balance","balance":0}"#, PaymentRequired),
            (r#"{"type":"concurrent","limit":2}"#, RateLimited),
            (r#"{"type":"refusal"}"#, ContentFiltered),
            (r#"{"type":"auth_failed"}"#, Unauthorized),
        ];
        for (text, want) in cases {
            assert_eq!(said(text).0, *want, "{text}");
        }
    }

    /// (batch 20) A provider's stream that ended in error, in LiteLLM's chunk repr, is the
    /// stream cut, whichever exception class the wrapper chose; FastAPI's request validation
    /// is the request's; a framework's registry that names its key is set-up.
    #[test]
    fn stream_ends_request_schema_and_registries() {
        let c = crate::classify::classify(&Failure::new(
            "litellm.APIConnectionError: chunk: StreamingChoices(finish_reason='error', index=0)",
        ));
        assert_eq!((c.category, c.transient), (StreamInterrupted, true));
        let c = crate::classify::classify(&Failure::new(
            "{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"model\"],\"msg\":\"Field required\"}]}",
        ));
        assert_eq!((c.category, c.transient), (BadRequest, false));
        let c = crate::classify::classify(&Failure::new(
            "Service with service_id 'gpt' does not exist",
        ));
        assert_eq!((c.category, c.transient), (Configuration, false));
    }

    /// (batch 22) Apps' and gateways' own words, from their sources: Open WebUI, ollama-js,
    /// OpenCode's gateway, Roo Code's shell probe, Azure.Core's retry give-up.
    #[test]
    fn batch22_app_words_from_sources() {
        let cases: &[(Failure, Category, bool)] = &[
            (Failure::new("OpenAI: Network Problem"), Connection, true),
            (Failure::new("Open AI: Network Problem"), Connection, true),
            (Failure::new("Ollama: Network Problem"), Connection, true),
            (Failure::new("Open WebUI: Server Connection Error"), Connection, true),
            // The upstream's own 4xx, passed through, still decides.
            (
                Failure::new("422: Open WebUI: Server Connection Error").with_status(422),
                Unprocessable,
                false,
            ),
            (
                Failure::new("Error: Did not receive done or success response in stream."),
                StreamInterrupted,
                true,
            ),
            (
                Failure::new("Error from provider (Console): OpenCode's free tier can only be used from within OpenCode"),
                Forbidden,
                false,
            ),
            (
                Failure::new("HTTP 400 MissingSessionID: \"OpenCode's free tier can only be used in OpenCode\"").with_status(400),
                Forbidden,
                false,
            ),
            (
                Failure::new("403 {\"error\":{\"type\":\"FreeTierError\",\"message\":\"denied\"}}").with_status(403),
                Forbidden,
                false,
            ),
            // The client's retry banner does not make a spent allowance pass.
            (
                Failure::new("Retrying in 51s \u{b7} attempt 7\n\nFree limit reached\n\nSubscribe to OpenCode Go"),
                PaymentRequired,
                false,
            ),
            (
                Failure::new("AI_APICallError: ak is not exist: xxx").with_class(["AI_APICallError"]),
                Unauthorized,
                false,
            ),
            // The stated cause beats the stream frame around it.
            (
                Failure::new("API Streaming Failed:\nCommand failed with exit code 1: powershell\n'powershell' is not recognized as an internal or external command,\noperable program or batch file."),
                Configuration,
                false,
            ),
            (
                Failure::new("pwsh : The term 'pwsh' is not recognized as the name of a cmdlet, function, script file"),
                Configuration,
                false,
            ),
            (
                Failure::new("Error: 400: => Unknown error (UnknownError): Something went wrong: Retry failed after 4 tries. Retry settings can be adjusted in ClientOptions.Retry or by configuring a custom retry policy in ClientOptions.RetryPolicy.")
                    .with_status(400),
                Unknown,
                false,
            ),
        ];
        for (f, want, transient) in cases {
            let c = classify(f);
            assert_eq!(
                (c.category, c.transient),
                (*want, *transient),
                "{}",
                f.message
            );
        }
    }

    /// (batch 25) Werkzeug's stock 500 page guesses "Either the server is overloaded or there is
    /// an error in the application": a plain server error; a page that says it is overloaded
    /// stays overloaded.
    #[test]
    fn a_hedged_overload_on_a_stock_500_page_is_a_server_error() {
        let page = "<!doctype html> <html lang=en> <title>500 Internal Server Error</title> <h1>Internal Server Error</h1> <p>The server encountered an internal error and was unable to complete your request. Either the server is overloaded or there is an error in the application.</p>";
        let c = classify(&Failure::http(500, page));
        assert_eq!((c.category, c.transient), (ServerError, true));
        let c = classify(&Failure::http(500, "").with_body(page));
        assert_eq!((c.category, c.transient), (ServerError, true));
        let c = classify(&Failure::http(
            500,
            "The server is overloaded, please retry.",
        ));
        assert_eq!(c.category, Overloaded);
    }
}

#[cfg(test)]
mod batch27a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 27) one-api / new-api's "do request failed" in any frame: the relay's upstream
    /// was not reached (retried); a certificate named inside is the set-up's.
    #[test]
    fn go_relays_do_request_failed() {
        for (status, text, want) in [
            (None, "{message: \"do request failed: upstream error: do request failed\", success: false, time: 0}", ServerError),
            (None, "{\"error\":{\"message\":\"do request failed\",\"type\":\"new_api_error\",\"code\":\"do_request_failed\"}}", ServerError),
            (Some(500), "upstream error: do request failed (request id: 2025120719452917)", ServerError),
            (None, "do request failed: Post \"https://a\": tls: failed to verify certificate: x509: certificate signed by unknown authority", Configuration),
        ] {
            let f = match status {
                Some(s) => Failure::http(s, text),
                None => Failure::new(text),
            };
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (want, want == ServerError), "{text}");
        }
    }
}

#[cfg(test)]
mod batch29a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 29a) An overload named only as a guess beside another cause stays the plain 5xx;
    /// an overload stated outright is still one.
    #[test]
    fn a_hedged_overload_stays_a_server_error() {
        for (status, text, want) in [
            (502, "{\"title\": \"Error 502: Bad gateway\", \"detail\": \"The origin web server returned an invalid or incomplete response to Cloudflare. This typically indicates the origin is overloaded or misconfigured.\"}", ServerError),
            (503, "This typically indicates the origin is overloaded or misconfigured.", ServerError),
            (503, "The server is overloaded. Please try again later.", Overloaded),
        ] {
            let c = classify(&Failure::http(status, text));
            assert_eq!((c.category, c.transient), (want, true), "{status} {text}");
        }
    }
}
