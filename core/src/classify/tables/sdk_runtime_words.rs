//! (batch 32a) Words SDKs and their runtimes print for a failure, in families the main tables
//! did not hold: a Google client's deadline, a retry helper's give-up on its deadline, a host's
//! first-byte limit, a model package built for another SDK major, a model the endpoint does not
//! serve, request parameters that exclude each other, an address field given a host name, and
//! a provider's Chinese words for high demand.

use super::{said, Phrase};
use crate::category::Category::*;

/// Words that name a deadline that ran out. Google answers one with gRPC's `DEADLINE_EXCEEDED`,
/// which google-api-core maps to a 504 (`DeadlineExceeded(GatewayTimeout)`): under a 5xx the
/// deadline is the failure's nature, the status only its carrier (`refine_status`). The same
/// holds for google-api-core's retry helper giving up at its deadline, whatever status its
/// last attempt got ("Deadline of 120.0s exceeded while calling target function, last
/// exception: 503 ...").
pub const DEADLINE: &[&str] = &[
    "deadline exceeded",
    "deadline_exceeded",
    "exceeded while calling target function",
    // (batch 34a) A serverless host's limit on a function's run, named as such: Vercel's
    // FUNCTION_INVOCATION_TIMEOUT page ("This Serverless Function has timed out."; also
    // EDGE_FUNCTION_INVOCATION_TIMEOUT) and AWS Lambda's "Task timed out after 10.01 seconds".
    // The relay's function waited on the model past its time limit: a timeout, under the 504
    // the host puts around it or none.
    "function_invocation_timeout",
    "edge_function_invocation_timeout",
    "serverless function has timed out",
    "task timed out after",
    // (batch 36) Go net/http's own timers, quoted by a local proxy or server under the 502 it
    // answers when its upstream call ran out (Ollama relaying a -cloud model: "Post
    // \"https://ollama.com:443/...\": net/http: TLS handshake timeout"; transport.go also says
    // "net/http: timeout awaiting response headers", client.go "(Client.Timeout exceeded while
    // awaiting headers)"): the call timed out, the 5xx only carries it.
    "net/http: tls handshake timeout",
    "net/http: timeout awaiting response headers",
    "client.timeout exceeded while",
];

/// A TLS session the peer cut (CPython's ssl module: "[SSL: UNEXPECTED_EOF_WHILE_READING] EOF
/// occurred in violation of protocol (_ssl.c:1000)"): an EOF of the link itself, never a
/// server's worker ending its output, so it counts as a failed connection wherever a bare
/// "unexpected EOF" does not (`says_connection_failed`).
pub const TLS_CUT: &[&str] = &[
    "eof occurred in violation of protocol",
    "unexpected_eof_while_reading",
];

/// undici's timers for an answer on a connection already made (`HeadersTimeoutError`,
/// `BodyTimeoutError`, codes `UND_ERR_HEADERS_TIMEOUT` / `UND_ERR_BODY_TIMEOUT`): printed as
/// the cause of the AI SDK's "Cannot connect to API: Headers Timeout Error", they say the
/// server was reached and too slow, a timeout, whatever the wrapper's words.
pub const ANSWER_TIMERS: &[&str] = &[
    "headers timeout error",
    "body timeout error",
    "und_err_headers_timeout",
    "und_err_body_timeout",
];

/// A stream closed before anything of the answer came (CLIProxyAPI: "upstream stream closed
/// before first payload"): no answer had started, so it is the connection that failed
/// (labelling guide: a cut after the answer started is `stream_interrupted`).
pub const NOTHING_STREAMED: &[&str] = &[
    "before first payload",
    "before the first payload",
    "before first byte",
    "before the first byte",
    "before first chunk",
    "before the first chunk",
    "before any data",
    "before any chunk",
    "before first token",
    "before the first token",
];

/// Read before the main permanent tables.
pub const PERMANENT: &[Phrase] = &[
    // Python's `ipaddress.ip_address` / `ip_network` given a host name (cpython
    // Lib/ipaddress.py: "%r does not appear to be an IPv4 or IPv6 address" / "network"), raised
    // where a client parses a proxy or no-proxy setting: set-up, before any request.
    said("does not appear to be an ipv4 or ipv6", Configuration),
    // The AI SDK refusing a model package built for another major of its specification
    // (vercel/ai `UnsupportedModelVersionError`: "Unsupported model version v1 for provider
    // ... AI SDK 5 only supports models that implement specification version \"v2\""): the
    // installed packages must be aligned; no request is sent.
    said("unsupported model version", Configuration),
    said(
        "only supports models that implement specification version",
        Configuration,
    ),
    // A model the called endpoint does not serve ("this model is not valid for chat
    // completion!", Cohere through an OpenAI-style route; "This model is not supported by the
    // Responses API", Azure AI Foundry): the request goes to the wrong route for the model.
    said("not valid for chat completion", BadRequest),
    said("not valid for chat completions", BadRequest),
    said("not supported by the responses api", BadRequest),
    said("not supported in the responses api", BadRequest),
    said("not supported with the responses api", BadRequest),
    // Parameters of a request that exclude each other (llama-server: "Either \"json_schema\" or
    // \"grammar\" can be specified, but not both"): the request is refused as written.
    said("can be specified, but not both", BadRequest),
    said("can be provided, but not both", BadRequest),
    said("but not both", BadRequest),
    said("are mutually exclusive", BadRequest),
    // Replicate's refusal of a model version whose setup runs fail ("Sorry, this version is
    // currently disabled due to failing setupruns."): it serves nothing until its owner fixes
    // it, which no retry budget outlasts.
    said("version is currently disabled", NotFound),
    // A request that names no model, in a server's words (Ollama server/routes.go answers
    // `{"error":"model is required"}` with a 400; OpenAI: "you must provide a model
    // parameter"): refused as written, with or without its status beside it.
    said("model is required", BadRequest),
    said("you must provide a model parameter", BadRequest),
    // An event-source client answered with something other than `text/event-stream` (often
    // a JSON error body under a 200): reqwest-eventsource's `InvalidContentType` prints
    // "Invalid header value: \"application/json\"" (Tabby), other Rust clients "Invalid content
    // type was returned: ...", browsers "EventSource's response has a MIME type
    // (\"application/json\") that is not \"text/event-stream\"", @microsoft/fetch-event-source
    // "Expected content-type to be text/event-stream": a reply outside the protocol.
    said("invalid header value: \"application/", InvalidResponse),
    said("invalid header value: \"text/", InvalidResponse),
    // The same inside a Rust `Debug` of the error (Tabby: `Err(StreamError("Invalid header
    // value: \"application/json\""))`), its quotes escaped.
    said("invalid header value: \\\"application/", InvalidResponse),
    said("invalid header value: \\\"text/", InvalidResponse),
    said("invalid content type was returned", InvalidResponse),
    said("that is not \"text/event-stream\"", InvalidResponse),
    said(
        "expected content-type to be text/event-stream",
        InvalidResponse,
    ),
    // Genkit Go's own model lookup failing ("ai.GenerateWithRequest: model %q not found",
    // genkit-ai/genkit#3625): the framework's registry lacks the name, before any provider.
    said("ai.generatewithrequest: model", Configuration),
];

/// Transient words, read with the main transient table.
pub const TRANSIENT: &[Phrase] = &[
    // google-api-core's retry helper giving up when its deadline ran out (api_core
    // retry_unary.py: "Deadline of 120.0s exceeded while calling target function", newer
    // "Timeout of 600.0s exceeded while calling target function"): the calls kept failing
    // transiently until the deadline, a timeout.
    said("exceeded while calling target function", Timeout),
    // A host's limit on a function's first byte (Vercel: "Your function was stopped as it did
    // not return an initial response within 25s"): the model was still generating.
    said("did not return an initial response within", Timeout),
    // (batch 34a) The same limits without a status (`DEADLINE` has their sources).
    said("function_invocation_timeout", Timeout),
    said("edge_function_invocation_timeout", Timeout),
    said("serverless function has timed out", Timeout),
    said("task timed out after", Timeout),
    // An HTTP/2 stream reset for a protocol error, as Qt's network stack words it (GPT4All:
    // "error code \"0-HTTP/2 protocol error\""); Chrome's ERR_HTTP2_PROTOCOL_ERROR and Go's
    // "PROTOCOL_ERROR; received from peer" are read by the network table already.
    said("http/2 protocol error", Connection),
    // A provider's words for high demand in Chinese (VS Code Copilot's zh-cn string:
    // "上游模型提供程序当前遇到高需求"): shared capacity, as "high demand" is in English.
    said("高需求", Overloaded),
    said("需求量过大", Overloaded),
    said("需求过高", Overloaded),
];

#[cfg(test)]
mod batch32a_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 32a) A deadline named under a 5xx is a timeout, and so is google-api-core's
    /// retry helper giving up at its deadline; a bare gateway timeout, and Google's 503
    /// UNAVAILABLE that only mentions a deadline expiring, stay the server's.
    #[test]
    fn deadlines_under_a_5xx_and_a_retry_helpers_give_up() {
        each(vec![
            // googleapis/python-datastore#432.
            (
                Failure::new("google.api_core.exceptions.RetryError: Deadline of 60.0s exceeded while calling target function, last exception: 504 Deadline Exceeded")
                    .with_class(["google.api_core.exceptions.RetryError"]),
                Timeout,
            ),
            // python-api-core retry_unary.py's newer wording.
            (
                Failure::new("Timeout of 600.0s exceeded while calling target function, last exception: 503 The service is currently unavailable."),
                Timeout,
            ),
            // cloud.google.com/apis/design/errors: DEADLINE_EXCEEDED maps to HTTP 504.
            (
                Failure::http(504, "{\"error\": {\"code\": 504, \"message\": \"The request deadline was exceeded.\", \"status\": \"DEADLINE_EXCEEDED\"}}"),
                Timeout,
            ),
            (Failure::http(503, "503 Deadline Exceeded"), Timeout),
            // Near misses: a proxy's gateway timeout; Google's UNAVAILABLE (corpus google.json).
            (Failure::http(504, "504 Gateway Time-out"), ServerError),
            (
                Failure::http(503, "503 UNAVAILABLE. {'error': {'code': 503, 'message': 'Deadline expired before operation could complete.', 'status': 'UNAVAILABLE'}}"),
                ServerError,
            ),
        ]);
    }

    /// (batch 32a) Set-up faults no request reaches: a model package for another AI SDK
    /// major, a host name where an address is parsed.
    #[test]
    fn set_up_faults_before_any_request() {
        each(vec![
            // ConardLi/easy-dataset#562.
            (
                Failure::new("Error generating questions: eT [AI_UnsupportedModelVersionError]: Unsupported model version v1 for provider \"ollama.chat\" and model \"qwen3:1.7b\". AI SDK 5 only supports models that implement specification version \"v2\"."),
                Configuration,
            ),
            // Younis-Ahmed/qwen-ai-provider#46, by its class alone too (ax-llm/ax#364).
            (
                Failure::new("UnsupportedModelVersionError [AI_UnsupportedModelVersionError]: Unsupported model version v1 for provider \"qwen.chat\" and model \"qwen-plus\"."),
                Configuration,
            ),
            (
                Failure::new("").with_class(["AI_UnsupportedModelVersionError"]),
                Configuration,
            ),
            // cpython Lib/ipaddress.py ip_network's wording.
            (
                Failure::new("ValueError: 'localhost' does not appear to be an IPv4 or IPv6 network"),
                Configuration,
            ),
            // Near miss: another unsupported-thing class stays the request's.
            (
                Failure::new("").with_class(["AI_UnsupportedFunctionalityError"]),
                BadRequest,
            ),
        ]);
    }

    /// (batch 32a) A request the endpoint refuses as written: a model it does not serve,
    /// parameters that exclude each other.
    #[test]
    fn requests_refused_as_written() {
        each(vec![
            (
                Failure::new("The model `gpt-5-codex` is not supported by the Responses API for this deployment"),
                BadRequest,
            ),
            (
                Failure::new("Error: this model is not valid for chat completions"),
                BadRequest,
            ),
            (
                Failure::new("You must provide either `messages` or `prompt`, but not both"),
                BadRequest,
            ),
            (
                Failure::new("'tools' and 'functions' are mutually exclusive"),
                BadRequest,
            ),
        ]);
    }

    /// (batch 32a) A hosted prediction that failed, an HTTP/2 stream reset, a host's
    /// first-byte limit, high demand in Chinese; advice to try later yields to the cause it
    /// is printed beside, and stays the server's where it stands alone.
    #[test]
    fn transient_faults_by_their_words() {
        each_with(vec![
            // replicate/replicate-python#262.
            (
                Failure::new("Unknown error handling prediction.")
                    .with_class(["replicate.exceptions.ModelError"]),
                ServerError,
                true,
            ),
            // atauenis/webone#212 (.NET HttpProtocolException); dfinity/agent-rs#184 (h2).
            (
                Failure::new("The HTTP/2 server reset the stream. HTTP/2 error code 'PROTOCOL_ERROR' (0x1)."),
                Connection,
                true,
            ),
            (
                Failure::new("http2 error: protocol error: not a result of an error"),
                Connection,
                true,
            ),
            (
                Failure::new("GPT4All: error code \"0-HTTP/2 protocol error\""),
                Connection,
                true,
            ),
            (
                Failure::new("FUNCTION_INVOCATION_TIMEOUT: Your function did not return an initial response within 10s"),
                Timeout,
                true,
            ),
            (
                Failure::new("当前模型需求过高，请稍后再试"),
                Overloaded,
                true,
            ),
            (
                Failure::new("请求失败，请稍后再试。错误: Connection timed out"),
                Timeout,
                true,
            ),
            (
                Failure::new("Something went wrong, please try again later. Error: peer closed connection without sending complete message body (incomplete chunked read)"),
                Connection,
                true,
            ),
            // Near misses: the advice alone; a named class of another library.
            (
                Failure::new("服务暂时不可用，请稍后再试"),
                ServerError,
                true,
            ),
            (
                Failure::new("Something went wrong. Please try again later."),
                ServerError,
                true,
            ),
            (
                Failure::new("Sorry, this version is currently disabled due to failing setupruns.")
                    .with_class(["ReplicateError"]),
                NotFound,
                false,
            ),
        ]);
    }

    /// (batch 32a) A link that failed, under a wrapper's server-error class or a relay's 500;
    /// undici's answer timers under the AI SDK's "Cannot connect"; a stream closed before its
    /// first payload. Near misses: a stream closed after its answer began stays a cut stream,
    /// a bare EOF under a 500 stays the server's. (batch 33a) A connect timeout under the AI
    /// SDK's frame is a timeout, as the corpus labels it (transport_b28a, transport_b31a,
    /// transport_b33a: "Cannot connect to API: Connect Timeout Error"; labelling guide:
    /// timeouts of any client are `timeout`).
    #[test]
    fn failed_links_answer_timers_and_empty_streams() {
        each(vec![
            (
                Failure::new("litellm.InternalServerError: OpenAIException - Connection reset by peer")
                    .with_class(["litellm.InternalServerError"]),
                Connection,
            ),
            // debpalash/VoiceStudio#1335 (an app's 500 around its own TLS link).
            (
                Failure::http(500, "ApiError: 500 Internal Server Error: [SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol (_ssl.c:1016)"),
                Connection,
            ),
            // BerriAI/litellm#10041.
            (
                Failure::new("litellm.APIConnectionError: Vertex_ai_betaException - EOF occurred in violation of protocol (_ssl.c:1007)")
                    .with_class(["litellm.APIConnectionError"]),
                Connection,
            ),
            // pinokiofactory/bolt#13.
            (
                Failure::new("lastError: APICallError [AI_APICallError]: Cannot connect to API: Headers Timeout Error")
                    .with_class(["AI_APICallError"]),
                Timeout,
            ),
            (
                Failure::new("AI_RetryError: Failed after 3 attempts. Last error: Cannot connect to API: Body Timeout Error"),
                Timeout,
            ),
            // router-for-me/CLIProxyAPI#3287 (the same words in another report).
            (Failure::new("upstream stream closed before first payload"), Connection),
            (Failure::new("Error: stream ended before the first token"), Connection),
            // ollama server/routes.go: a chat request without a model, statusless.
            (
                Failure::new("ollama error: {\"error\":\"model is required\"}"),
                BadRequest,
            ),
            // nickscamara/open-deep-research#53. Near misses: CLIProxyAPI#5028; Ollama's
            // runner ending its output under a 500.
            (
                Failure::new("AI_RetryError: Failed after 3 attempts. Last error: Cannot connect to API: Connect Timeout Error (attempted addresses: 157.240.1.9:443)"),
                Timeout,
            ),
            (
                Failure::new("upstream stream closed before [DONE]"),
                StreamInterrupted,
            ),
            (Failure::http(500, "unexpected EOF"), ServerError),
        ]);
    }

    /// (batch 32a) An event-source client given another content type is a reply outside the
    /// protocol; a framework's own model lookup is set-up. Near misses: a header the caller
    /// set that fails to parse is no reply at all; a provider's 404 for a model stays its own.
    #[test]
    fn event_stream_content_types_and_framework_lookups() {
        each(vec![
            // reqwest-eventsource `Error::InvalidContentType`, printed and in a Debug.
            (
                Failure::new("Invalid header value: \"text/html; charset=utf-8\""),
                InvalidResponse,
            ),
            (
                Failure::new("Error: StreamError(\"Invalid header value: \\\"application/json\\\"\")"),
                InvalidResponse,
            ),
            // sarfraznawaz2005/laravel-sse#5 (a browser's EventSource).
            (
                Failure::new("EventSource's response has a MIME type (\"application/json\") that is not \"text/event-stream\". Aborting the connection."),
                InvalidResponse,
            ),
            // Azure/fetch-event-source src/fetch.ts's check.
            (
                Failure::new("Error: Expected content-type to be text/event-stream, Actual: application/json"),
                InvalidResponse,
            ),
            // genkit-ai/genkit#3625 (Go), genkit-ai/genkit#3077 (JS).
            (
                Failure::new("ai.GenerateWithRequest: model \"googleai/gemini-9-pro\" not found"),
                Configuration,
            ),
            (
                Failure::new("GenkitError: NOT_FOUND: Model 'vertexai/imagen-3.0-fast-generate-001' not found"),
                Configuration,
            ),
            // Near misses.
            (Failure::new("invalid header value: \"Bearer sk-abc\\n\""), Unknown),
            (
                Failure::http(404, "models/gemini-9-pro is not found for API version v1beta, or is not supported for generateContent."),
                NotFound,
            ),
        ]);
    }
}
