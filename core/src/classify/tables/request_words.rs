//! (batch 34a) A request the server or the model cannot take, in words that come without a
//! status or under one that says nothing (a 200 with an error body, a wrapper's class):
//! - Chinese words for "the call's parameters are wrong" (Zhipu 1210 "API 调用参数有误，请检查文档。",
//!   docs.bigmodel.cn/cn/faq/api-code; 参数错误 / 参数无效, the same family in the other Chinese
//!   APIs' tables), read as the English "invalid parameter" is.
//! - Volcengine Ark's `InvalidParameter` message "One or more parameters specified in the request
//!   are not valid" (www.volcengine.com/docs/82379/1299023), statusless behind one-api.
//! - A local server asked for images by a model without its vision part: LM Studio "Vision
//!   add-on is not loaded, but images were provided for processing" (under 200, inside
//!   "Error in iterating prediction stream"); llama.cpp server "image input is not supported -
//!   hint: if this is unexpected, you may need to provide the mmproj" (tools/server
//!   server-common.cpp). The same request fails every time: stated, so a stream's or a 200's
//!   words do not make it a cut.
//! - A per-request token cap, OpenAI's embeddings `max_tokens_per_request` ("Requested 319487
//!   tokens, max 300000 tokens per request"): the input is too large, as a context overflow
//!   is; a per-minute cap ("tokens per min") is another family and stays a rate.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Read with the permanent phrases (and the stated ones: every row here states its nature).
pub const PERMANENT: &[Phrase] = &[
    said("参数有误", BadRequest),
    said("参数错误", BadRequest),
    said("参数无效", BadRequest),
    said(
        "parameters specified in the request are not valid",
        BadRequest,
    ),
    stated("vision add-on is not loaded", BadRequest),
    stated("but images were provided", BadRequest),
    stated("image input is not supported", BadRequest),
    stated("max_tokens_per_request", ContextOverflow),
    stated("tokens per request", ContextOverflow),
];

#[cfg(test)]
mod batch34a_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::each;
    use crate::failure::Failure;

    /// Go's `encoding/json` syntax errors, every place of the scanner, read as a reply the
    /// client could not decode where no status is given; the server's own 400 about the
    /// request's JSON keeps its status.
    #[test]
    fn go_json_syntax_errors_are_undecodable_replies() {
        each(vec![
            // charmbracelet/mods#516 (Ollama behind a wrong path: a plain-text 404 body)
            (Failure::new("There was a problem with the ollama API request.\n\nunmarshal: invalid character 'p' after top-level value"), InvalidResponse),
            // ollama/ollama#4169
            (Failure::new("Error: invalid character '\\x00' looking for beginning of value"), InvalidResponse),
            // Receipt-Wrangler/receipt-wrangler-desktop#390 (a comment's variant)
            (Failure::new("invalid character 'm' after top-level value"), InvalidResponse),
            // the other places in golang/go src/encoding/json/scanner.go
            (Failure::new("invalid character '}' looking for beginning of object key string"), InvalidResponse),
            (Failure::new("invalid character 'x' after object key:value pair"), InvalidResponse),
            (Failure::new("invalid character ']' after object key"), InvalidResponse),
            (Failure::new("invalid character '+' after array element"), InvalidResponse),
            (Failure::new("invalid character 'a' in literal null (expecting 'u')"), InvalidResponse),
            (Failure::new("invalid character '\\n' in string literal"), InvalidResponse),
            // Near miss: Ollama's own 400 about the request body it got (ollama/ollama#5159).
            (Failure::new("{\"error\":\"invalid character 'm' looking for beginning of value\"}").with_status(400), BadRequest),
        ]);
    }

    /// curl's code decides in PHP's and Guzzle's form too: 52 is a connection that closed
    /// before any byte, not an empty answer.
    #[test]
    fn curl_codes_in_guzzles_form() {
        each(vec![
            // guzzle/guzzle#2612
            (Failure::new("cURL error 52: Empty reply from server"), Connection),
            // nextcloud/server#38875
            (Failure::new("GuzzleHttp\\Exception\\ConnectException: cURL error 52: Empty reply from server (see https://curl.haxx.se/libcurl/c/libcurl-errors.html) for http://nextcloud-aio-imaginary:9000/pipeline"), Connection),
            (Failure::new("cURL error 7: Failed to connect to localhost port 11434: Connection refused"), Connection),
            // Near miss: an empty answer in a client's own words stays an unusable reply.
            (Failure::new("The model returned an empty reply"), InvalidResponse),
        ]);
    }

    /// A serverless host's limit on a function's run is a timeout, under its 504 or none.
    #[test]
    fn serverless_function_time_limits() {
        each(vec![
            // mayooear/ai-pdf-chatbot-langchain#25
            (Failure::new("An error occurred with your deployment FUNCTION_INVOCATION_TIMEOUT"), Timeout),
            // vercel/examples#674
            (Failure::new("[POST] /api/chat reason=EDGE_FUNCTION_INVOCATION_TIMEOUT, status=504, user_error=true"), Timeout),
            // musistudio/claude-code-router#271: a router's 504 api_error around Vercel's page
            (Failure::new("Error from provider: An error occurred with your deployment\n\nFUNCTION_INVOCATION_TIMEOUT\n\nfra1::46n92-1753107905195-02e151215b22\n").with_status(504).with_body("{\"error\":{\"message\":\"Error from provider: An error occurred with your deployment\\n\\nFUNCTION_INVOCATION_TIMEOUT\\n\",\"type\":\"api_error\",\"code\":\"provider_response_error\"}}"), Timeout),
            (Failure::new("Task timed out after 30.03 seconds"), Timeout),
            // Near miss: a bare gateway timeout page stays the server's.
            (Failure::new("504 Gateway Timeout").with_status(504), ServerError),
        ]);
    }

    /// A proxy that refused the CONNECT tunnel with a 4xx, or a SOCKS proxy without the
    /// client's extra, is set-up whatever connection words wrap it; a proxy's 5xx is not.
    #[test]
    fn proxy_tunnels_refused_and_socks_extras_missing() {
        each(vec![
            // psf/requests#4756
            (Failure::new("OSError: Tunnel connection failed: 400 Bad Request"), Configuration),
            // mozilla/bugbot#2002
            (Failure::new("HTTPSConnectionPool(host='bugzilla.mozilla.org', port=443): Max retries exceeded with url: /rest/bug (Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 403 Forbidden')))"), Configuration),
            // 3proxy/3proxy#1135: curl's receive error code, the proxy's refusal in its words
            (Failure::new("curl: (56) CONNECT tunnel failed, response 400"), Configuration),
            // yt-dlp/yt-dlp#9434
            (Failure::new("<urlopen error Tunnel connection failed: 403 Forbidden>"), Configuration),
            (Failure::new("Error communicating with OpenAI: Missing dependencies for SOCKS support.").with_class(["openai.error.APIConnectionError"]), Configuration),
            // Near miss: a proxy that could not reach the upstream answers a 5xx, a proxy's
            // error page (CONTRACT §2: server_error), retried.
            (Failure::new("HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded (Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 503 Service Unavailable')))"), ServerError),
        ]);
    }

    /// Node's HTTP parser on bytes that are not an HTTP response: a remote protocol error.
    #[test]
    fn node_llhttp_parse_errors_are_the_connections() {
        each(vec![
            // kennethrisa/discord-rustserverstatus#51
            (Failure::new("Error: Parse Error: Expected HTTP/\n    at Socket.socketOnData (node:_http_client:521:22) {\n  bytesParsed: 0,\n  code: 'HPE_INVALID_CONSTANT',\n  reason: 'Expected HTTP/'"), Connection),
            // request/request#1713
            (Failure::new("[Error: Parse Error] bytesParsed: 0, code: 'HPE_INVALID_CONSTANT'"), Connection),
            // Near miss: a JSON parser's "parse error" is the reply's shape, not the link's.
            (Failure::new("JSON Parse error: Unexpected identifier \"You\""), InvalidResponse),
        ]);
    }

    /// Requests a server cannot take, stated without a useful status.
    #[test]
    fn requests_a_server_cannot_take() {
        each(vec![
            (Failure::new("AI_APICallError: API 调用参数有误，请检查文档。").with_class(["AI_APICallError"]), BadRequest),
            (Failure::new("请求参数错误"), BadRequest),
            (Failure::new("One or more parameters specified in the request are not valid"), BadRequest),
            // llama.cpp server (tools/server): a text model asked to read an image
            (Failure::new("image input is not supported - hint: if this is unexpected, you may need to provide the mmproj").with_status(500), BadRequest),
            // The same words in an error body under 200 (LM Studio's shape): not a cut.
            (Failure::new("image input is not supported").with_status(200).with_body("{\"error\":{\"message\":\"Error in iterating prediction stream: image input is not supported\"}}"), InvalidResponse),
            // Near miss: Anthropic's event shape keeps R1 (an error event of no type is a cut).
            (Failure::new("image input is not supported").with_status(200).with_body("{\"type\":\"error\",\"error\":{\"message\":\"image input is not supported\"}}"), StreamInterrupted),
            (Failure::new("Error code: 400 - {'error': {'message': 'Requested 400000 tokens, max 300000 tokens per request', 'type': 'max_tokens_per_request', 'param': None, 'code': 'max_tokens_per_request'}}").with_status(400), ContextOverflow),
            // Near miss: a per-minute token cap stays a rate.
            (Failure::new("Rate limit reached for text-embedding-3-small on tokens per min (TPM): Limit 1000000, Used 999000, Requested 4000.").with_status(429), RateLimited),
        ]);
    }

    /// A code documented only as a 422 does not overrule another stated 4xx.
    #[test]
    fn a_422_code_under_a_400() {
        each(vec![
            (Failure::new("Provider returned 400").with_status(400).with_body("{\"error\":{\"code\":\"validation_error\",\"message\":\"The model 'x' does not support the '/v1/chat/completions' API\",\"type\":\"invalid_request_error\"}}"), BadRequest),
            (Failure::new("Invalid JSON body or parameters").with_status(422).with_body("{\"error\":{\"code\":\"validation_error\",\"message\":\"Invalid JSON body or parameters\"}}"), Unprocessable),
        ]);
    }
}
