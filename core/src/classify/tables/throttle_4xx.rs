//! (batch 20) A throttle or overload a server words under its own 400: ChatGPT's web backend
//! answers "Too many requests in 1 hour. Try again later." with a 400 (acheong08/ChatGPT), the
//! Codex backend "Our servers are currently overloaded. Please try again later." with a 400.
//! Only words that name the server's state or a window of an hour or less, never a request's
//! fault; read where `agents::OVERLOAD_UNDER_4XX` is.

use super::{said, Phrase};
use crate::category::Category::*;

/// Busy and throttle words that overrule a 400's bad request.
pub const UNDER_4XX: &[Phrase] = &[
    said("servers are currently overloaded", Overloaded),
    said("server is currently overloaded", Overloaded),
    said("we're currently overloaded", Overloaded),
    said("too many requests in 1 hour", RateLimited),
    said("too many requests in 1 minute", RateLimited),
    said("too many requests in a short period", RateLimited),
    said("too many requests, please try again later", RateLimited),
    said("too many requests. try again later", RateLimited),
];

/// (batch 21) A relay's own words for its channel group's load, which one-api / new-api put in
/// place of any upstream 429 ("当前分组上游负载已饱和，请稍后再试": its relay rewrites the
/// upstream's message, whatever code stays beside it; the Midjourney relay's "当前分组负载已饱和，
/// 请稍后再试，或升级账户以提升服务质量"): shared capacity, `overloaded`, even beside a rate-limit
/// code (`RateLimitReached`, `rate_limit_exceeded`) under the 429.
pub const RELAY_SATURATION: &[&str] = &[
    "负载已饱和",
    "负载已满",
    "upstream load is saturated",
    "upstream load saturated",
    "group is saturated",
    "group load is saturated",
];

/// (batch 29a) A server's own code for its shared request queue being full, under a 429
/// (huggingface/speech-to-speech#343: code `queue_exceeded`, type `too_many_requests_error`,
/// "We're experiencing high traffic right now!", the Cerebras queue 429 the main tables' "high
/// traffic" row names): the provider's capacity, an overload, whatever rate type sits beside it.
pub const QUEUE_FULL: &[&str] = &["queue_exceeded", "queue_full", "request queue is full"];

#[cfg(test)]
mod tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    #[test]
    fn busy_and_throttle_words_overrule_a_400() {
        let c = classify(&Failure::http(
            400,
            "{\"detail\":\"Too many requests in 1 minute. Try again later.\"}",
        ));
        assert_eq!((c.category, c.transient), (RateLimited, true));
        let c = classify(&Failure::http(
            400,
            "The server is currently overloaded with other requests. Sorry about that!",
        ));
        assert_eq!((c.category, c.transient), (Overloaded, true));
        // A 400 that only counts requests in a batch is the request's.
        let c = classify(&Failure::http(
            400,
            "Too many requests in batch: at most 100",
        ));
        assert_eq!((c.category, c.transient), (BadRequest, false));
    }
}

#[cfg(test)]
mod batch29a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 29a) A full queue under a 429 is an overload (huggingface/speech-to-speech#343);
    /// a bare 429 stays a rate limit.
    #[test]
    fn a_full_queue_is_an_overload() {
        for (status, text, want) in [
            (
                429,
                "{'type': 'too_many_requests_error', 'param': 'queue', 'code': 'queue_exceeded'}",
                Overloaded,
            ),
            (
                429,
                "{\"code\": \"queue_full\", \"message\": \"request queue is full\"}",
                Overloaded,
            ),
            (429, "Too many requests", RateLimited),
        ] {
            let c = classify(&Failure::http(status, text));
            assert_eq!((c.category, c.transient), (want, true), "{status} {text}");
        }
    }
}
