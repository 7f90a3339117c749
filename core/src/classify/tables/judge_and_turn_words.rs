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
