//! (batch 33a) Words of relays, SDKs and providers the main tables did not hold: ERNIE's rules
//! on a conversation's shape, a gateway's missing token in Chinese, Dio's browser transport
//! failure, a router with no model left to fall back to, a request ended before any chunk,
//! and a stream that ended without its terminal event.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Permanent natures stated in words (read before the transient tables).
pub const PERMANENT: &[Phrase] = &[
    // Baidu ERNIE / Qianfan refusing a conversation whose roles do not alternate user,
    // assistant, ..., user (codes 336003 and 336006 carry the same words: "the length of
    // messages must be an odd number", "the role of message with odd index in the messages
    // must be assistant"): the request must change (as "roles must alternate" elsewhere).
    stated("length of messages must be an odd number", BadRequest),
    stated("role of message with odd index", BadRequest),
    stated("role of message with even index", BadRequest),
    // one-api / new-api when the request carries no token (model/token.go ValidateUserToken:
    // "未提供令牌", "no token provided"; middleware/auth.go "未提供 access token"): no key was
    // set, set-up (labelling guide: a missing key is `configuration`).
    stated("未提供令牌", Configuration),
    stated("未提供 access token", Configuration),
    stated("未提供api key", Configuration),
    stated("未提供 api key", Configuration),
    stated("未提供密钥", Configuration),
];

/// Passing failures named in words.
pub const TRANSIENT: &[Phrase] = &[
    // Dio on the web (dio_web_adapter, `DioExceptionType.connectionError`): "The connection
    // errored: The XMLHttpRequest onError callback was called. This typically indicates an
    // error on the network layer.": the browser's request failed below HTTP.
    said("xmlhttprequest onerror callback was called", Connection),
    said("error on the network layer", Connection),
    // A model router with nothing left to try after the chosen model failed (Puter's
    // OpenRouter route: "no fallback model available"): the provider's failure, passing.
    said("no fallback model available", ServerError),
    said("no fallback models available", ServerError),
    // A request that ended before the first chunk (Claude Code: "request ended without sending
    // any chunks"): nothing had streamed, the connection failed
    // (`sdk_runtime_words::NOTHING_STREAMED` for "before the first chunk").
    said("ended without sending any chunks", Connection),
    said("ended without any chunks", Connection),
    said("without receiving any chunks", Connection),
    // A stream that stopped before its terminal event (a relay's "stream usage incomplete:
    // missing terminal event", the Responses API's `response.completed` never came): the
    // answer was cut, whatever status the stream began with.
    said("missing terminal event", StreamInterrupted),
    said("without a terminal event", StreamInterrupted),
    said("no terminal event", StreamInterrupted),
];
