//! A nature said in parts: a subject and what happened to it in the same clause
//! (`tables::nearby::FAMILIES`), and an HTTP reason phrase said as a whole message or a whole
//! quoted value (`tables::nearby::REASON_PHRASES`). Read last, on the lower-cased text, where
//! nothing more specific decided.

use super::tables::nearby::{
    Family, ANSWER_WORDS, CALLER_FAULT, FAMILIES, NOT_STATUS_UNITS, REASON_PHRASES,
};
use crate::category::Category;

/// Whether `b` continues a word (ASCII letters and digits, `_`); other bytes end one, so a CJK
/// phrase needs no boundary.
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every start of `needle` in `hay` on word boundaries (at the edges that are ASCII words).
fn starts<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    hay.match_indices(needle).map(|(i, _)| i).filter(move |&i| {
        let end = i + n.len();
        let left = !is_word(n[0]) || i == 0 || !is_word(h[i - 1]);
        let right = !is_word(n[n.len() - 1]) || end == h.len() || !is_word(h[end]);
        left && right
    })
}

/// Whether the text between two places ends a clause (a sentence's stop, a line).
fn breaks_clause(between: &str) -> bool {
    between.contains(". ") || between.contains('\n') || between.contains('。')
}

/// At most this many places of one subject are looked at (a huge body is read by its head).
const MAX_PLACES: usize = 256;

/// Whether `family` is said in `hay`. The outcomes' places are found once per family, so a
/// subject met many times costs a search of them, not of the text.
fn says(hay: &str, family: &Family) -> bool {
    let mut subjects = family
        .subjects
        .iter()
        .flat_map(|s| {
            starts(hay, s)
                .take(MAX_PLACES)
                .map(move |at| (at, at + s.len()))
        })
        .peekable();
    if family.outcomes.is_empty() || subjects.peek().is_none() {
        return subjects.peek().is_some();
    }
    let mut outcomes: Vec<(usize, usize)> = family
        .outcomes
        .iter()
        .flat_map(|o| {
            starts(hay, o)
                .take(MAX_PLACES)
                .map(move |at| (at, at + o.len()))
        })
        .collect();
    outcomes.sort_unstable();
    subjects.any(|(at, after)| {
        let first = outcomes.partition_point(|(o, _)| *o < after);
        let following = outcomes[first..]
            .iter()
            .take_while(|(o, _)| o - after <= family.span)
            .any(|(o, _)| !family.one_clause || !breaks_clause(&hay[after..*o]));
        let before = family.either_order
            && outcomes[..outcomes.partition_point(|(o, _)| *o < at)]
                .iter()
                .rev()
                .filter(|(_, end)| *end <= at)
                .take_while(|(_, end)| at - end <= family.span)
                .any(|(_, end)| !family.one_clause || !breaks_clause(&hay[*end..at]));
        following || before
    })
}

/// The first family the text says, by the tables' order. Codes written with underscores or
/// hyphens (`REQUEST_LIMIT_EXCEEDED`, `invalid-api-key`) are read as the words they join.
pub fn category(hay: &str) -> Option<Category> {
    let spaced = spaced(hay);
    let c = FAMILIES.iter().find(|f| says(&spaced, f))?.category;
    // Vague words of passing never outweigh a fault the text names (`CALLER_FAULT`).
    (!c.is_transient() || !names_fault(&spaced)).then_some(c)
}

/// The text with `_` and `-` read as spaces.
fn spaced(hay: &str) -> String {
    hay.chars()
        .map(|c| if c == '_' || c == '-' { ' ' } else { c })
        .collect()
}

/// Whether the text names the caller's fault or a standing refusal (`CALLER_FAULT`): then no
/// reading of last resort may call it transient.
pub fn names_caller_fault(hay: &str) -> bool {
    names_fault(&spaced(hay))
}

fn names_fault(spaced: &str) -> bool {
    CALLER_FAULT
        .iter()
        .any(|w| starts(spaced, w).next().is_some())
}

/// The status a whole message, or a whole quoted value in it, names by its reason phrase
/// ("Not Found", `{"detail":"Not Found"}`, `'message': 'Service Unavailable'`).
pub fn reason_status(message: &str) -> Option<u16> {
    let lower = super::text::lower_bounded(message, super::MAX_SCAN);
    let whole = lower.trim().trim_end_matches(['.', '!']);
    REASON_PHRASES.iter().find_map(|(phrase, status)| {
        let quoted = ['"', '\''].into_iter().any(|q| {
            whole
                .match_indices(phrase)
                .any(|(i, _)| whole[..i].ends_with(q) && whole[i + phrase.len()..].starts_with(q))
        });
        (whole == *phrase || quoted).then_some(*status)
    })
}

/// A status (400-599) the text gives as the answer's ("The server responded with 503",
/// "Request failed (503)", "[429]" after "upstream error", 服务器返回 502): three digits standing
/// alone, an answering word (`ANSWER_WORDS`) ending within the few bytes before them, and no
/// unit after them. `hay` is lower-case.
pub fn answered_status(hay: &str) -> Option<u16> {
    let b = hay.as_bytes();
    (0..b.len().saturating_sub(2)).find_map(|i| {
        let digits = &b[i..i + 3];
        let alone = digits.iter().all(u8::is_ascii_digit)
            && (i == 0 || !(is_word(b[i - 1]) || b[i - 1] == b'.'))
            && b.get(i + 3).map_or(true, |c| {
                !(is_word(*c) || *c == b'.' && b.get(i + 4).is_some_and(u8::is_ascii_digit))
            });
        // (batch 26) A port after an address is no status (`text::port_at`).
        if !alone || super::text::port_at(b, i) {
            return None;
        }
        let n = digits
            .iter()
            .fold(0u16, |n, c| n * 10 + u16::from(c - b'0'));
        if !(400..=599).contains(&n) {
            return None;
        }
        let next = hay[i + 3..]
            .trim_start_matches([' ', ')', ']'])
            .split(|c: char| c.is_whitespace() || c == ',' || c == '.')
            .next()
            .unwrap_or("");
        if NOT_STATUS_UNITS.contains(&next) {
            return None;
        }
        // The answering word ends in the bytes before the number, only spaces, colons,
        // brackets or "with" between.
        let before = hay[..i].trim_end_matches([' ', ':', '(', '[', '=', '：', '#']);
        let before = before.strip_suffix(" with").unwrap_or(before);
        let said = ANSWER_WORDS.iter().any(|w| {
            before.ends_with(w)
                && before[..before.len() - w.len()]
                    .bytes()
                    .next_back()
                    .map_or(true, |c| {
                        !is_word(c) || !w.as_bytes()[0].is_ascii_alphabetic()
                    })
        });
        said.then_some(n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Category::*;

    /// (batch 26) A port after an address is not the answer's status (grpc-core's
    /// debug_error_string "Error received from peer ipv4:158.160.54.160:443 {...}"); a status
    /// after an answering word still is.
    #[test]
    fn a_port_after_an_address_is_no_status() {
        assert_eq!(
            answered_status("error received from peer ipv4:10.0.0.7:443 {grpc_status:8}"),
            None
        );
        assert_eq!(
            answered_status("error received from peer ipv6:[::1]:443 {grpc_status:3}"),
            None
        );
        assert_eq!(answered_status("the server responded with 503"), Some(503));
    }

    /// Wordings written for this test in the families' shapes, each with its parts apart or
    /// turned around; none from the corpus.
    #[test]
    fn families_read_their_parts() {
        let cases: &[(&str, Option<Category>)] = &[
            (
                "the sse stream was unexpectedly closed by the peer",
                Some(StreamInterrupted),
            ),
            (
                "unexpected end of stream on connection",
                Some(StreamInterrupted),
            ),
            (
                "okhttp: stream was reset: internal_error",
                Some(StreamInterrupted),
            ),
            ("lost connection to the model host", Some(Connection)),
            ("failed to connect to 127.0.0.1 port 8080", Some(Connection)),
            (
                "the inference server is unreachable right now",
                Some(Connection),
            ),
            ("网络连接失败", Some(Connection)),
            (
                "request rate too high for this deployment",
                Some(RateLimited),
            ),
            (
                "too many concurrent requests for this key",
                Some(RateLimited),
            ),
            ("请求过多", Some(RateLimited)),
            ("the server is busy, come back soon", Some(Overloaded)),
            ("系统繁忙", Some(Overloaded)),
            (
                "llama runner process has terminated: signal: killed",
                Some(ServerError),
            ),
            ("backend worker crashed while generating", Some(ServerError)),
            ("something went wrong. please try again.", Some(ServerError)),
            ("something odd happened. please try again.", None),
            ("your session has expired. please try again.", None),
            ("your account has been suspended, retry later", None),
            ("unsupported file type. please retry with a pdf.", None),
            ("出了点问题，请稍后", Some(ServerError)),
            ("algo salió mal, inténtelo de nuevo", Some(ServerError)),
            (
                "quota exhausted for today, please try again tomorrow",
                Some(PaymentRequired),
            ),
            ("the api key you provided has expired", Some(Unauthorized)),
            ("api key 无效", Some(Unauthorized)),
            ("openai_api_key is not set", Some(Configuration)), // its words: api key, not set
            (
                "error: rate_limit_exceeded: token bucket empty",
                Some(RateLimited),
            ),
            ("failed to fetch", Some(Connection)),
            ("the prefill instance might be dead", Some(ServerError)),
            (
                "internal failure. try your request again.",
                Some(ServerError),
            ),
            ("unmarshal response body failed", Some(InvalidResponse)),
            ("the response ended prematurely", Some(StreamInterrupted)),
            (
                "completion finished without a finish reason",
                Some(StreamInterrupted),
            ),
            ("post \"http://x/v1/chat\": eof", Some(Connection)),
            ("eof while parsing a value at line 1", Some(InvalidResponse)),
            ("language model not connected", Some(Connection)),
            ("network is unreachable", Some(Connection)),
            ("the response was truncated at max tokens", None),
            ("you are sending requests too quickly", Some(RateLimited)),
            (
                "the prompt is too long, please try again",
                Some(ContextOverflow),
            ),
            (
                "daily limit reached, please try again",
                Some(PaymentRequired),
            ),
            ("今日额度已用完，请稍后", Some(PaymentRequired)),
            ("access denied. please try again", Some(Forbidden)),
            (
                "your prompt was flagged; please try again",
                Some(ContentFiltered),
            ),
            ("slow down!", Some(RateLimited)),
            ("language model unavailable", Some(ServerError)),
            ("the model is warming up", Some(ServerError)),
            (
                "the model is not available for your account",
                Some(Forbidden),
            ),
            ("network error", Some(Connection)),
            ("net::err_connection_closed", Some(Connection)),
            (
                "the service is temporarily unable to serve you",
                Some(ServerError),
            ),
            (
                "no api key was configured for this profile",
                Some(Configuration),
            ),
            (
                "your invoice is overdue; please try again",
                Some(PaymentRequired),
            ),
            ("余额不足，请稍后", Some(PaymentRequired)),
            // Parts in different clauses, or too far apart, say nothing together.
            ("the stream. we closed the ticket", None),
            ("connection\nfailed tests: 3", None),
            ("model loaded in 3s, all good", None),
            ("检查后重试", None),
            // A missing part beside a wrapper's stream words is the part's.
            (
                "stream ended with error: backend not found: llama-cpp",
                Some(Configuration),
            ),
            ("the model `gpt-9` does not exist", Some(NotFound)),
        ];
        for (text, want) in cases {
            assert_eq!(category(text), *want, "{text}");
        }
    }

    /// Through the whole classifier: a text that names the caller's fault and asks to try
    /// again is never retried on the strength of the ask (it was unknown before these
    /// families; it stays not retried).
    #[test]
    fn caller_faults_with_a_retry_ask_are_not_retried() {
        for text in [
            "Invalid request. Please try again.",
            "Your session has expired. Please try again.",
            "Authentication failed, please try again",
            "Login required. Please try again after signing in.",
            "The selected model does not support images. Please try again with another model.",
            "Your message contains disallowed content, please try again",
            "Unsupported file type. Please retry with a PDF.",
            "Your subscription has ended. Please try again after renewing.",
            "You have reached your usage cap. Please try again next month.",
            "Missing required parameter: messages. Please retry.",
            "Token expired, please retry",
            "Quota exhausted for today, please try again tomorrow",
            "The provided image could not be processed. Please try again.",
            "Not allowed. Please try again.",
            "You do not have access to this model. Please try again.",
            "Organization has been disabled. Please try again.",
            "Something went wrong: invalid api key. Please try again.",
            "Connection to database failed: wrong password",
            "Model gpt-5 unavailable for your plan",
            // (batch 19) "Worker crashed: CUDA out of memory" left this list: a GPU out of
            // memory under load is a server's passing state wherever the corpus labels it
            // (tgi_424_generation_error_cuda_oom, ollama_runner_terminated_cudamalloc_oom,
            // continue_4432_ollama_500_cudamalloc_oom, ollama3232_cuda_error_out_of_memory_gemma),
            // asserted in `classify::batch19::gpu_memory_and_health`.
            "Worker crashed: model file is corrupt",
            "Engine is dead: model file is corrupt",
            // A class's word of passing yields to the fault the text names.
            "InvokeServerUnavailableError: your subscription has ended",
            "TransientAiException: the API key has expired",
        ] {
            let c = crate::classify::classify(&crate::Failure::new(text));
            assert!(!c.transient, "{text}: {:?}", c.category);
        }
    }

    #[test]
    fn statuses_given_as_the_answer() {
        let cases: &[(&str, Option<u16>)] = &[
            ("the server responded with 503", Some(503)),
            ("request failed (503)", Some(503)),
            ("upstream error: [429] slow down", Some(429)),
            ("server returned 529", Some(529)),
            ("erreur 503 : service indisponible", Some(503)),
            ("服务器返回 502", Some(502)),
            ("状态码：429", Some(429)),
            ("ошибка 503", Some(503)),
            ("the model returned 500 tokens", None),
            ("failed after 450 ms", None),
            ("error 4000: custom", None),
            ("version 1.503 failed", None),
            ("we have 503 users", None),
        ];
        for (text, want) in cases {
            assert_eq!(answered_status(text), *want, "{text}");
        }
    }

    #[test]
    fn reason_phrases_whole_or_quoted() {
        assert_eq!(reason_status("Not Found"), Some(404));
        assert_eq!(
            reason_status("failed: {\"detail\":\"Not Found\"}"),
            Some(404)
        );
        assert_eq!(
            reason_status("{'message': 'Service Unavailable'}"),
            Some(503)
        );
        assert_eq!(reason_status("the page was not found anywhere"), None);
        assert_eq!(reason_status("Gone fishing"), None);
    }

    /// (batch 25) A server that disconnected, in MCP clients' words (Claude Desktop's "MCP
    /// server image-downloader disconnected", its log's "Server disconnected. For
    /// troubleshooting guidance ..."), is a connection lost; a model a relay or app does not
    /// serve yet is its set-up.
    #[test]
    fn disconnected_servers_and_models_not_yet_supported() {
        for text in [
            "2025-01-02T13:05:12.443Z [info] MCP server image-downloader disconnected. For troubleshooting guidance, please visit our debugging documentation",
            "[error] [weather] Server disconnected. For troubleshooting guidance, please visit our debugging documentation",
            "The provider disconnected",
        ] {
            let c = crate::classify::classify(&crate::failure::Failure::new(text));
            assert_eq!((c.category, c.transient), (Connection, true), "{text}");
        }
        for text in [
            "model 'windsurf/claude-3-7-sonnet' is not not yet supported",
            "Model gpt-5.1-codex is not supported yet",
        ] {
            let c = crate::classify::classify(&crate::failure::Failure::new(text));
            assert_eq!((c.category, c.transient), (Configuration, false), "{text}");
        }
    }
}
