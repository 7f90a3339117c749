//! (batch 36) Words of eval harnesses' judges, of turn-order and pairing rules, of aborts and of
//! malformed endpoints, read with the main tables.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Permanent words, read with the main permanent table (the `stated` ones also over a status).
pub const PERMANENT: &[Phrase] = &[
    // A judge model's answer that the harness could not read as its verdict (promptfoo's
    // llm-rubric "Could not extract JSON from llm-rubric response", "llm-rubric produced
    // malformed response"; a grader's "Invalid JSON after 10 attempts" once its own retries
    // are spent): the model's output failed the harness's format, the same prompt fails again.
    stated("could not extract json from", Validation),
    stated("produced malformed response", Validation),
    stated("invalid json after", Validation),
    // JSON.parse on a reply opening with a backtick: a Markdown code fence, which only a model
    // writes ("Unexpected token '`', \"```json {...\" is not valid JSON").
    stated("unexpected token '`'", Validation),
    // A tool message with no call before it, in DashScope's spelling ("messages with role
    // \"tool\" must be a response to a preceeding message with \"tool_calls\"").
    stated("response to a preceeding message with", OrphanToolCalls),
    // A history whose first turn is not the user's (Gemini SDK's "History must start with a
    // user turn."): the request's shape, refused every time.
    stated("must start with a user turn", BadRequest),
    // An AbortSignal fired with no reason (Chromium's DOMException "signal is aborted without
    // reason"): the caller's own abort (CONTRACT §2 cancelled).
    said("signal is aborted without reason", Cancelled),
    // Baidu Qianfan's error_code 110 "Access token invalid or no longer valid" and 111 "Access
    // token expired" (Qianfan API error-code table).
    stated("access token invalid or no longer valid", Unauthorized),
    stated("access token expired", Unauthorized),
    // LM Studio's server on a model name it has not loaded ("Model with key 'x' not loaded."):
    // the server does not know the name asked for.
    stated("model with key", NotFound),
    // An HTTP response's body used before it was read (httpx's `ResponseNotRead`: "Attempted to
    // access streaming response content, without having called `read()`."; Home Assistant
    // shows it as "Response not read"): the calling code's order, the same on every try.
    said("response not read", Programming),
    said(
        "attempted to access streaming response content",
        Programming,
    ),
];

/// Connection words whose host is a URL's scheme: the endpoint setting held a whole URL where
/// a host name was due (urllib3's "HTTPSConnectionPool(host='https', port=443)", Node's
/// "getaddrinfo ENOTFOUND https"), so no retry reaches a server.
pub const SCHEME_AS_HOST: &[Phrase] = &[
    stated("host='https'", Configuration),
    stated("host='http'", Configuration),
    stated("enotfound https", Configuration),
    stated("enotfound http", Configuration),
];

/// Transient words: a catch-all that asks the user to try again shortly (Claude's "Claude
/// couldn't finish this response. Try again in a moment."), a server error by the guide.
pub const TRANSIENT: &[Phrase] = &[said("try again in a moment", ServerError)];

#[cfg(test)]
mod batch36_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 36) The families in texts no corpus case holds. The library's search was spent
    /// this session: the texts are the named sources' own strings or the family's other
    /// wrappers, as said on each.
    #[test]
    fn batch36_families_carry_over() {
        each(vec![
            // A judge's verdict the harness could not read, other metrics and wrappers.
            (
                Failure::new("Error: Could not extract JSON from factuality response"),
                Validation,
            ),
            (
                Failure::new("model-graded-closedqa produced malformed response: Yes"),
                Validation,
            ),
            (
                Failure::new("Evaluator failed: Invalid JSON after 3 attempts"),
                Validation,
            ),
            (
                Failure::new("SyntaxError: Unexpected token '`', \"```\n{\"score\"... is not valid JSON"),
                Validation,
            ),
            // DashScope's misspelt order rule through another client, without its status.
            (
                Failure::new("InternalError.Algo.InvalidParameter: messages with role \"tool\" must be a response to a preceeding message with \"tool_calls\""),
                OrphanToolCalls,
            ),
            // google-genai chat sessions' check, as a Python ValueError.
            (
                Failure::new("ValueError: History must start with a user turn."),
                BadRequest,
            ),
            // Chromium's AbortSignal.abort() without a reason, as fetch rejects with it.
            (
                Failure::new("AbortError: signal is aborted without reason"),
                Cancelled,
            ),
            // Qianfan's error codes 110 and 111 in its JSON body.
            (
                Failure::new("{\"error_code\":110,\"error_msg\":\"Access token invalid or no longer valid\"}"),
                Unauthorized,
            ),
            (
                Failure::http(200, "{\"error_code\":111,\"error_msg\":\"Access token expired\"}"),
                Unauthorized,
            ),
            // LM Studio's answer as the OpenAI SDK raises it.
            (
                Failure::http(404, "Error code: 404 - {'error': \"Model with key 'llama-3' not loaded.\"}"),
                NotFound,
            ),
            // A URL where a host was due: urllib3 over http, Node's resolver.
            (
                Failure::new("HTTPConnectionPool(host='http', port=80): Max retries exceeded with url: //localhost:11434/api/chat"),
                Configuration,
            ),
            (
                Failure::new("Error: getaddrinfo ENOTFOUND https"),
                Configuration,
            ),
            // httpx's ResponseNotRead in its own words.
            (
                Failure::new("httpx.ResponseNotRead: Attempted to access streaming response content, without having called `read()`."),
                Programming,
            ),
            // Go net/http's other timers under a proxy's 5xx (transport.go, client.go).
            (
                Failure::http(502, "{\"error\":\"Post \\\"https://api.x.ai/v1/chat\\\": net/http: timeout awaiting response headers\"}"),
                Timeout,
            ),
            (
                Failure::http(500, "Post \"https://api.openai.com/v1/chat/completions\": context canceled (Client.Timeout exceeded while awaiting headers)"),
                Timeout,
            ),
            // python-websockets' frame log of a close received: 1008 is a refused message,
            // 1011 the server's fault.
            (
                Failure::new("< CLOSE 1008 (policy violation) Request contains an invalid argument. [49 bytes]"),
                BadRequest,
            ),
            (
                Failure::new("< CLOSE 1011 (internal error) Internal error encountered. [33 bytes]"),
                ServerError,
            ),
            // A catch-all asking to try again shortly, another app's words.
            (
                Failure::new("Something interrupted the reply. Try again in a moment."),
                ServerError,
            ),
        ]);
    }

    /// Near misses: the same words where another nature is stated keep it.
    #[test]
    fn batch36_near_misses_keep_their_nature() {
        each_with(vec![
            // A rate limit asking to try again shortly stays a rate limit.
            (
                Failure::http(429, "Rate limit reached. Try again in a moment."),
                RateLimited,
                true,
            ),
            // A real host in urllib3's pool stays a connection failure.
            (
                Failure::new("HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/chat/completions (Caused by NewConnectionError('Failed to establish a new connection: [Errno 111] Connection refused'))"),
                Connection,
                true,
            ),
            // A bare gateway page under a 502 stays the server's.
            (Failure::http(502, "Bad Gateway"), ServerError, true),
        ]);
    }
}
