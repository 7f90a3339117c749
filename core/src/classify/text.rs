//! Whole-word phrase matching over lower-cased text.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

use super::tables::sdk_runtime_words;
use super::tables::{
    agents, budgets, client_bugs, clients, decode as decode_rows, engines, jsonrpc, output_form,
    plain_words, reply_parsers, said, setup_registry, stated as stated_row, stated_faults,
    throttle_4xx, words, wrappers, Phrase,
};
use crate::category::Category::*;
use crate::Category;

/// A phrase table compiled into one automaton: one pass over the text finds every phrase; the
/// earliest row of the table that matches on word boundaries wins.
pub struct PhraseSet {
    ac: AhoCorasick,
    rows: Vec<&'static Phrase>,
}

impl PhraseSet {
    /// Compiles `rows` into one automaton; earlier rows take priority over later ones.
    pub fn new(rows: impl IntoIterator<Item = &'static Phrase>) -> Self {
        let rows: Vec<_> = rows.into_iter().collect();
        // A DFA: built once, and the fastest to search (every failure's text is searched).
        let ac = AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(rows.iter().map(|p| p.text))
            .expect("phrase table compiles");
        PhraseSet { ac, rows }
    }

    /// The highest-priority phrase present in `hay` (lower-case).
    pub fn first(&self, hay: &str) -> Option<&'static Phrase> {
        let h = hay.as_bytes();
        let mut best: Option<usize> = None;
        for m in self.ac.find_overlapping_iter(hay) {
            let row = m.pattern().as_usize();
            if best.is_some_and(|b| b <= row) {
                continue;
            }
            let p = self.rows[row].text.as_bytes();
            let left_ok = !needs_left(p[0]) || m.start() == 0 || !is_word(h[m.start() - 1]);
            let right_ok = !is_word(p[p.len() - 1])
                || m.end() == h.len()
                || !is_word(h[m.end()])
                || glued_number(p[p.len() - 1], h[m.end()]);
            if left_ok && right_ok {
                best = Some(row);
            }
        }
        best.map(|b| self.rows[b])
    }

    /// (batch 33a) Whether `hay` holds, as a phrase, a row that `wanted` accepts (any row,
    /// not only the highest-priority one).
    pub fn holds(&self, hay: &str, wanted: impl Fn(&Phrase) -> bool) -> bool {
        let h = hay.as_bytes();
        self.ac.find_overlapping_iter(hay).any(|m| {
            let row = self.rows[m.pattern().as_usize()];
            let p = row.text.as_bytes();
            let left_ok = !needs_left(p[0]) || m.start() == 0 || !is_word(h[m.start() - 1]);
            let right_ok = !is_word(p[p.len() - 1])
                || m.end() == h.len()
                || !is_word(h[m.end()])
                || glued_number(p[p.len() - 1], h[m.end()]);
            left_ok && right_ok && wanted(row)
        })
    }

    /// (batch 33a) The highest-priority phrase in `hay` that `wrapper` does not accept, every
    /// accepted phrase looked past (blanked) first. `first` alone returns the earliest table
    /// row, which for a wrapper's words ("I/O error on", "Cannot connect to API", "try again
    /// later") hides the cause they print; this returns that cause.
    pub fn first_past(
        &self,
        hay: &str,
        wrapper: impl Fn(&Phrase) -> bool,
    ) -> Option<&'static Phrase> {
        let mut rest = std::borrow::Cow::Borrowed(hay);
        // Each round blanks one distinct phrase; a text has few wrappers, so this is bounded.
        for _ in 0..8 {
            let p = self.first(&rest)?;
            if !wrapper(p) {
                return Some(p);
            }
            rest = std::borrow::Cow::Owned(rest.replace(p.text, &" ".repeat(p.text.len())));
        }
        None
    }
}

/// (batch 31b) A word run onto the number after it, as texts that lost a space print them
/// (codeshell's "connect ECONNREFUSED127.0.0.1:8080"): a phrase that ends in a letter still
/// ends where a digit begins. A phrase's word is never a prefix of a longer word this way.
fn glued_number(last_of_phrase: u8, next: u8) -> bool {
    last_of_phrase.is_ascii_alphabetic() && next.is_ascii_digit()
}

/// Builds this module's phrase sets and patterns now (see `crate::warm`). Each is built on first
/// use otherwise.
pub(crate) fn warm() {
    for set in [
        permanent,
        stated,
        network,
        overload_under_4xx,
        transient,
        overload,
        rate_window,
        long_window,
        rate_limit,
        decode,
    ] {
        set();
    }
    engine_down("");
    limit_and_requested("");
    quotes_class("", |_| false);
    serde_debug_error("");
    curl_code("");
    reply_lacks("");
    websocket_close_code("");
    proto_retry_delay("");
    request_key_error("");
    go_request_unmarshal("");
    unparsed_server_error("");
    let _ = requests_client_errors("").count();
    minimax_trailing_code("");
    not_found_at_lua_frame("");
}

/// The compiled permanent and transient phrase tables.
pub fn permanent() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| {
        PhraseSet::new(
            // (batch 36) Judges', turn-order and abort words (`judge_and_turn_words`).
            super::tables::judge_and_turn_words::PERMANENT
                .iter()
                .chain(super::tables::judge_and_turn_words::SCHEME_AS_HOST)
                .chain(super::tables::stated_refusals::PERMANENT)
                .chain(stated_faults::READ_FIRST)
                .chain(agents::CREDENTIAL_UNSET)
                .chain(stated_faults::MODEL_ABSENT)
                .chain(stated_faults::REASON_AFTER_PARAM)
                .chain(agents::BEFORE_ANY_CALL)
                .chain(agents::REPLY_FIELD_PATHS)
                .chain(plain_words::PERMANENT)
                .chain(sdk_runtime_words::PERMANENT)
                .chain(super::tables::relay_words::PERMANENT)
                .chain(super::tables::PERMANENT_PHRASES)
                .chain(SERVER_AND_SETUP_PERMANENT)
                .chain(engines::PERMANENT)
                .chain(stated_faults::PERMANENT)
                .chain(words::PERMANENT)
                .chain(agents::PERMANENT)
                .chain(wrappers::PERMANENT)
                .chain(budgets::PERMANENT)
                // (batch 33b) Apps' and plugins' words (`app_words`).
                .chain(super::tables::app_words::PERMANENT)
                // (batch 34b) Agents' and apps' words (`agent_app_words`).
                .chain(super::tables::agent_app_words::PERMANENT)
                .chain(setup_registry::PERMANENT)
                .chain(output_form::PERMANENT)
                .chain(client_bugs::PERMANENT)
                .chain(jsonrpc::PERMANENT)
                .chain(clients::rows().filter(|p| !p.category.is_transient()))
                .chain(reply_parsers::PERMANENT)
                // (batch 34a) Requests a server cannot take (`request_words`).
                .chain(super::tables::request_words::PERMANENT),
        )
    })
}

/// The permanent phrases that state a nature outright (`stated` rows of [`STATED`] categories):
/// these overrule a transient status or code wherever they stand in the text.
///
/// [`STATED`]: super::tables::STATED
pub fn stated() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| {
        PhraseSet::new(
            // (batch 36) Judges', turn-order and abort words (`judge_and_turn_words`).
            super::tables::judge_and_turn_words::PERMANENT
                .iter()
                .chain(super::tables::judge_and_turn_words::SCHEME_AS_HOST)
                .chain(super::tables::stated_refusals::PERMANENT)
                .chain(stated_faults::READ_FIRST)
                .chain(stated_faults::REASON_AFTER_PARAM)
                .chain(plain_words::PERMANENT)
                .chain(sdk_runtime_words::PERMANENT)
                .chain(super::tables::relay_words::PERMANENT)
                .chain(super::tables::PERMANENT_PHRASES)
                .chain(SERVER_AND_SETUP_PERMANENT)
                .chain(engines::PERMANENT)
                .chain(stated_faults::PERMANENT)
                .chain(words::PERMANENT)
                .chain(agents::PERMANENT)
                .chain(budgets::PERMANENT)
                // (batch 33b) Apps' and plugins' words (`app_words`).
                .chain(super::tables::app_words::PERMANENT)
                // (batch 34b) Agents' and apps' words (`agent_app_words`).
                .chain(super::tables::agent_app_words::PERMANENT)
                .chain(setup_registry::PERMANENT)
                .chain(jsonrpc::PERMANENT)
                // (batch 31a) The model's reply breaking the protocol, stated (a malformed
                // function call under a wrapper's 500).
                .chain(output_form::PERMANENT)
                // (batch 33c) A validator's refusal of a request's value, stated.
                .chain(reply_parsers::PERMANENT)
                // (batch 34a) Requests a server cannot take (`request_words`).
                .chain(super::tables::request_words::PERMANENT)
                // (batch 34a) A client's set-up stated under its connection words (a proxy
                // that refused the tunnel with a 4xx inside urllib3's "connection broken by").
                .chain(clients::rows())
                .filter(|p| {
                    p.stated
                        && (super::tables::STATED.contains(&p.category)
                            || super::tables::STATED_IN_WORDS.contains(&p.category))
                }),
        )
    })
}

/// What a connection failure's text says (`tables::NETWORK_PHRASES`).
pub fn network() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| {
        PhraseSet::new(
            // (batch 34a) A client's stated set-up (a proxy's tunnel refused with a 4xx) before
            // the connection words that wrap it (urllib3's "connection broken by", "Cannot
            // connect to proxy").
            // (batch 36) A URL's scheme where the host was due: set-up, not the network.
            super::tables::judge_and_turn_words::SCHEME_AS_HOST
                .iter()
                .chain(clients::rows().filter(|p| p.stated))
                .chain(super::tables::NETWORK_PHRASES.iter())
                .chain(SETUP_UNDER_A_CONNECTION_CLASS)
                .chain(super::tables::stated_faults::ANSWER_UNDER_A_CONNECTION_CLASS)
                .chain(clients::rows().filter(|p| {
                    !p.stated && matches!(p.category, Connection | Configuration | Timeout)
                })),
        )
    })
}

/// Overload words a server puts under a 400 of its own (`agents::OVERLOAD_UNDER_4XX`).
pub fn overload_under_4xx() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| {
        PhraseSet::new(
            agents::OVERLOAD_UNDER_4XX
                .iter()
                .chain(stated_faults::UPSTREAM_UNDER_4XX)
                .chain(throttle_4xx::UNDER_4XX),
        )
    })
}

/// The compiled transient phrase table (`tables::TRANSIENT_PHRASES`).
pub fn transient() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| {
        PhraseSet::new(
            stated_faults::GRPC_CONNECTION
                .iter()
                .chain(wrappers::TRANSIENT)
                .chain(SERVER_STATE_TRANSIENT)
                .chain(engines::TRANSIENT)
                .chain(stated_faults::TRANSIENT)
                .chain(clients::rows().filter(|p| p.category.is_transient()))
                .chain(super::tables::TRANSIENT_PHRASES)
                .chain(words::TRANSIENT)
                // (batch 33b) Apps' and plugins' words (`app_words`).
                .chain(super::tables::app_words::TRANSIENT)
                // (batch 34b) Outage pages (`agent_app_words`).
                .chain(super::tables::agent_app_words::TRANSIENT)
                .chain(agents::TRANSIENT)
                .chain(jsonrpc::TRANSIENT)
                .chain(plain_words::TRANSIENT)
                .chain(sdk_runtime_words::TRANSIENT)
                .chain(super::tables::relay_words::TRANSIENT)
                .chain(reply_parsers::TRANSIENT)
                // (batch 36) A catch-all's "try again in a moment" (`judge_and_turn_words`).
                .chain(super::tables::judge_and_turn_words::TRANSIENT),
        )
    })
}

/// The transient rows that name an overload, wherever they stand in the table.
pub fn overload() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| transient_of(Overloaded))
}

/// The transient rows of one category, wherever they stand in the table.
fn transient_of(category: Category) -> PhraseSet {
    PhraseSet::new(
        transient()
            .rows
            .iter()
            .copied()
            .filter(|p| p.category == category),
    )
}

/// (batch 18) What the last clause of a message says when it is a quoted error on its own (after
/// the last ": "): a Python KeyError's quoted key (`agents::REPLY_KEYS`), or a client's whole
/// error word (`agents::LAST_CLAUSE`).
pub fn last_clause(message: &str) -> Option<Category> {
    let m = message.trim();
    // (batch 34b) The key after a sentence saying what failed ("Evaluation failed.
    // 'choices'": an app printing `f"... failed. {e}"` of a KeyError): a reply's key only.
    if let Some((before, last)) = m.rsplit_once(". ") {
        let key = last
            .trim()
            .strip_prefix('\'')
            .and_then(|k| k.strip_suffix('\''));
        if before.to_ascii_lowercase().ends_with("failed")
            && key.is_some_and(|k| agents::REPLY_KEYS.contains(&k))
        {
            return Some(InvalidResponse);
        }
    }
    let (before, last) = m.rsplit_once(": ")?;
    // (batch 35b) A clause closed by the bracket that opened the message's error ("[API Error:
    // terminated]", Gemini CLI and Qwen Code): the bracket is no part of the words.
    let last = match before.contains('[') {
        true => last.trim().trim_end_matches(']'),
        false => last,
    };
    let last = last.trim();
    // A KeyError's key stands right after an error's name ("Error: 'choices'",
    // "litellm.APIConnectionError: 'name'"), not after a field of a printed object
    // ("code: 'ECONNRESET'") or a frame's own words ("Error building Component X: 'message'").
    let before = before.to_ascii_lowercase();
    let after_error = ["error", "exception"].iter().any(|w| before.ends_with(w));
    if let Some(key) = Some(last)
        .filter(|_| after_error)
        .and_then(|k| k.strip_prefix('\''))
        .and_then(|k| k.strip_suffix('\''))
        .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    {
        return Some(match agents::REPLY_KEYS.contains(&key) {
            true => InvalidResponse,
            false => Unknown,
        });
    }
    agents::LAST_CLAUSE
        .iter()
        .find(|(w, _)| last.eq_ignore_ascii_case(w))
        .map(|(_, c)| *c)
}

/// (batch 20) A Python server's `KeyError('field')` (its repr, as text-generation-webui and
/// FastChat answer any exception under a 500): the handler looked up a field the request did not
/// carry, and the same request fails the same way. A key of a provider's reply
/// (`agents::REPLY_KEYS`: "KeyError('choices')") is the reply's fault instead, not this.
pub fn request_key_error(hay: &str) -> bool {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(r#"\bkeyerror\(['"]([a-z0-9_]{1,64})['"]\)"#)
            .expect("keyerror pattern compiles")
    })
    .captures_iter(hay)
    .any(|c| !agents::REPLY_KEYS.contains(&&c[1]))
}

/// (batch 20) V8's `JSON.parse` error quoting a reply's head (`Unexpected token 'I', "Internal
/// s"... is not valid JSON`) that begins a server's failure words (`tables::decode::
/// SERVER_ERROR_HEADS`; at least 8 characters quoted): the failure the page names.
pub fn unparsed_server_error(hay: &str) -> Option<Category> {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(r#"unexpected token '.', \\?"([^"\\]{8,40})\\?"\.\.\. is not valid json"#)
            .expect("v8 json head pattern compiles")
    })
    .captures_iter(hay)
    .find_map(|c| {
        let head = c[1].trim_end();
        decode_rows::SERVER_ERROR_HEADS
            .iter()
            .find(|(w, _)| w.starts_with(head) || head.starts_with(w))
            .map(|(_, category)| *category)
    })
}

/// (batch 20) A requests-style "NNN Client Error" anywhere in the text (`400 Client Error: Bad
/// Request for url: ...`, as a wrapper's 500 quotes the upstream's answer): the 4xx statuses it
/// names.
pub fn requests_client_errors(hay: &str) -> impl Iterator<Item = u16> + '_ {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(r"\b(4[0-9][0-9]) client error\b").expect("client error pattern compiles")
    })
    .captures_iter(hay)
    .filter_map(|c| c[1].parse().ok())
}

/// (batch 20) Go's `UnmarshalTypeError` into a request struct (`tables::decode::GO_REQUEST_TARGET`):
/// the server decoding what it received.
pub fn go_request_unmarshal(hay: &str) -> bool {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(decode_rows::GO_REQUEST_TARGET).expect("go request pattern compiles")
    })
    .is_match(hay)
}

/// (batch 19) An SDK's own words for an answer it could not deserialize (`tables::decode`).
pub fn decode() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| {
        PhraseSet::new(
            decode_rows::PHRASES
                .iter()
                .chain(decode_rows::OTHER_LANGUAGES)
                .chain(reply_parsers::DECODE)
                .chain(super::tables::go_json::SYNTAX)
                // Decoders' words from the clients' own catalogs.
                .chain(super::tables::client_catalogs::DECODE),
        )
    })
}

/// (batch 27) A stream event parsed from an input that had already ended
/// (`tables::decode::STREAM_EVENT_FRAMES` with `EMPTY_INPUT_ENDS`).
pub fn empty_stream_event(hay: &str) -> bool {
    decode_rows::STREAM_EVENT_FRAMES
        .iter()
        .any(|w| hay.contains(w))
        && decode_rows::EMPTY_INPUT_ENDS
            .iter()
            .any(|w| hay.contains(w))
}

/// (batch 19) reqwest's bare "error decoding response body": a wrong shape, unless the text
/// places it in a stream or the transport (`tables::decode::CUT_CONTEXT`).
pub fn bare_body_decode(hay: &str) -> bool {
    contains_phrase(hay, decode_rows::BODY_DECODE)
        && !decode_rows::CUT_CONTEXT
            .iter()
            .any(|w| contains_phrase(hay, w))
}

/// (batch 19) serde_json's error in its Debug form, as Rust SDKs print it with `{:?}`
/// (`Error("expected value", line: 8, column: 1)`): an answer of the wrong shape.
pub fn serde_debug_error(hay: &str) -> bool {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(r#"\berror\("[^"\n]{1,200}", line: \d+, column: \d+\)"#)
            .expect("serde debug pattern compiles")
    })
    .is_match(hay)
}

/// (batch 19) An inference engine's part, named alone or as the last word of a compound name
/// ("MQLLMEngine", "EngineCore", "llama runner process"), then what happened to it within one
/// clause ("is already dead", "encountered an issue"): the server's engine died under the
/// request (`tables::engines`).
pub fn engine_down(hay: &str) -> bool {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    R.get_or_init(|| {
        let alt = |words: &[&str]| {
            let mut w: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
            // Longest first, so a part's longer name wins the alternation.
            w.sort_by_key(|s| std::cmp::Reverse(s.len()));
            w.join("|")
        };
        regex::Regex::new(&format!(
            r"\b[a-z0-9_]*(?:{})\b[^.;:\n]{{0,40}}?\b(?:{})\b",
            alt(engines::PARTS),
            alt(engines::DOWN)
        ))
        .expect("engine pattern compiles")
    })
    .is_match(hay)
}

/// (batch 18) The transient rows that name a rate limit, wherever they stand in the table.
pub fn rate_limit() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| transient_of(RateLimited))
}

/// (batch 18) Gemini's `google.rpc.RetryInfo` as the legacy Python SDK prints it, protobuf text
/// format ("retry_delay {\n  seconds: 19\n}", with `nanos` for a fraction): the wait in seconds.
pub fn proto_retry_delay(text: &str) -> Option<f64> {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(
            r"retry_delay\s*\{\s*seconds:\s*([0-9]{1,9})(?:\s+nanos:\s*([0-9]{1,9}))?\s*\}",
        )
        .expect("valid regex")
    });
    let c = r.captures(head(text, super::MAX_SCAN))?;
    let secs: f64 = c[1].parse().ok()?;
    let nanos: f64 = c.get(2).map_or(Some(0.0), |n| n.as_str().parse().ok())?;
    Some(secs + nanos / 1e9)
}

/// Permanent phrase families of servers, gateways and their set-up (after the main table, so
/// they only decide where it said nothing). `stated` rows overrule a transient status: a
/// self-hosted server's 500 that names a missing backend or an over-long input.
const SERVER_AND_SETUP_PERMANENT: &[Phrase] = &[
    // (batch 18) Caller faults a server states under its own 500: Spring's
    // HttpRequestMethodNotSupportedException ("Request method 'POST' not supported", Spring 6:
    // "is not supported"), a relay at the wrong path; OAuth 2.0's `invalid_request` ("The
    // request is missing a required parameter", RFC 6749 §5.2) relayed by one-api; an app that
    // asks for a module to be installed ("Module x not found. Please install it").
    stated_row("request method 'post' not supported", Configuration),
    stated_row("request method 'post' is not supported", Configuration),
    stated_row("missing a required parameter", BadRequest),
    stated_row("please install it", Configuration),
    // Input-length limits as self-hosted servers word them (SGLang's admission check "Input
    // length (N tokens) exceeds the maximum allowed length (M tokens)", DeepInfra's "Requested
    // input length N exceeds maximum input length M").
    stated_row("exceeds the maximum allowed length", ContextOverflow),
    stated_row("exceeds maximum input length", ContextOverflow),
    stated_row("exceeds the maximum input length", ContextOverflow),
    // A server or tool that is not installed or not there (LocalAI's "backend not found", a
    // shell's "command not found", Python's "No module named", LiteLLM's "LLM Provider NOT
    // provided"): the set-up, the same on every try.
    stated_row("backend not found", Configuration),
    stated_row("command not found", Configuration),
    stated_row("no module named", Configuration),
    stated_row("provider not provided", Configuration),
    // Permission words of cloud IAM (Azure AI Foundry "lacks the required data action", Vertex
    // "Permission '...' denied on resource", a .NET/gRPC `PermissionDenied` printed as a word).
    said("lacks the required data action", Forbidden),
    said("denied on resource", Forbidden),
    said("permissiondenied", Forbidden),
    said("not authenticated", Unauthorized),
    // A router with no provider for what the request needs (OpenRouter "No endpoints found that
    // support tool use", "No endpoints found for <model>").
    said("no endpoints found", NotFound),
    // A 200 whose answer could not be read.
    said("empty or malformed response", InvalidResponse),
    said("malformed response", InvalidResponse),
    // Request-shape words of chat APIs: Cohere's "invalid request: ..." / "invalid type:
    // parameter ...", turn order ("should alternate with assistant message(s)"), and the bare
    // reason phrase of a 400 as apps print it ("Generation failed - Bad Request").
    said("invalid request:", BadRequest),
    said("invalid type: parameter", BadRequest),
    said("should alternate with", BadRequest),
    // Range checks of request parameters ("The specified capacity '0' ... should be at least 1").
    said("should be at least", BadRequest),
    // A gateway's balancer that may not connect where it was configured to (Kong's ai-proxy
    // with a custom upstream: "no host allowed while connecting to upstream").
    said("no host allowed while connecting", Configuration),
    // A library or gateway that does not know the configured provider ("Sorry, but provider
    // \"workersai.chat\" is currently not supported"): nothing was sent.
    said("is currently not supported", Configuration),
    said("must alternate", BadRequest),
    said("bad request", BadRequest),
];

/// Connection-class failures whose text names a set-up mistake instead (LiteLLM raises its
/// `APIConnectionError` for a model string without a provider: no request was ever sent).
const SETUP_UNDER_A_CONNECTION_CLASS: &[Phrase] = &[
    said("provider not provided", Configuration),
    said("backend not found", Configuration),
];

/// Transient phrase families of servers' state, before the main table (they are the more
/// specific reading of the words they share with it).
const SERVER_STATE_TRANSIENT: &[Phrase] = &[
    // Capacity for the model is gone for now (Google's MODEL_CAPACITY_EXHAUSTED "No capacity
    // available for model X on the server"): an overload, not the caller's rate.
    said("no capacity available", Overloaded),
    said("model_capacity_exhausted", Overloaded),
    // Rate words of platforms: Databricks' REQUEST_LIMIT_EXCEEDED ("RPC token bucket limit has
    // been exceeded", "There are already 5 active runs (limit: 5)"), .NET's HttpStatusCode
    // names printed as words ("API response TooManyRequests").
    said("request_limit_exceeded", RateLimited),
    said("token bucket limit", RateLimited),
    said("toomanyrequests", RateLimited),
    said("serviceunavailable", ServerError),
    said("internalservererror", ServerError),
    said("badgateway", ServerError),
    said("gatewaytimeout", ServerError),
    // A server that cannot serve the model now: Ollama's "model requires more system memory
    // (N GiB) than is available", Cloudflare's error 1101 "Worker threw exception".
    said("more system memory", ServerError),
    said("worker threw exception", ServerError),
    // (batch 15) Transport words of other runtimes: .NET's "canceled due to the configured
    // HttpClient.Timeout of 100 seconds elapsing" (before its "transport connection" words),
    // Ruby's Net::ReadTimeout / Net::OpenTimeout / Net::WriteTimeout inside an app's sentence,
    // Elixir Mint's %Mint.TransportError{reason: :closed}.
    said("httpclient.timeout", Timeout),
    said("net::readtimeout", Timeout),
    said("net::opentimeout", Timeout),
    said("net::writetimeout", Timeout),
    said("reason: :closed", Connection),
    said("reason: :timeout", Timeout),
];

/// A limit named by its time window ("Tokens per minute limit exceeded - too many tokens
/// processed", Cerebras; "Requests per second limit exceeded"): a rate, whatever size words
/// come with it. Read before the permanent phrases when the text states no status.
pub fn rate_window() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| PhraseSet::new(RATE_WINDOW))
}

const RATE_WINDOW: &[Phrase] = &[
    said("per minute limit exceeded", RateLimited),
    said("per second limit exceeded", RateLimited),
    said("per hour limit exceeded", RateLimited),
    // (batch 17) A throttle named by its own code or by its ask to wait, whatever size words
    // come with it: Bedrock's "ThrottlingException: Too many tokens, please wait before trying
    // again" is its token-rate throttle, not an over-long input (a context overflow never asks
    // to wait). A daily window in the same words still turns payment (`long_window`).
    said("throttlingexception:", RateLimited),
    said("please wait before trying again", RateLimited),
];

/// A status reqwest's `Display` states: "HTTP status client error (451 Unavailable For Legal
/// Reasons) for url (...)", "HTTP status server error (503 Service Unavailable) for url".
pub fn reqwest_status(message: &str) -> Option<u16> {
    let lower = message.to_ascii_lowercase();
    ["http status client error (", "http status server error ("]
        .iter()
        .find_map(|intro| {
            let at = lower.find(intro)? + intro.len();
            error_status_at(lower.as_bytes(), at)
        })
}

/// A status written as "Error 500" (word, one space, three digits: "DeepInfra Server: Error
/// 500"). Narrower than the introducers: "error: 401" inside a wrapper's prose is left to them.
pub fn error_space_status(hay: &str) -> Option<u16> {
    let h = hay.as_bytes();
    let mut from = 0;
    while let Some(at) = find_at(hay, "error ", from) {
        from = at + "error ".len();
        if at > 0 && is_word(h[at - 1]) {
            continue;
        }
        let i = from;
        if i + 3 == h.len() || h.get(i + 3).is_some_and(|c| !is_word(*c)) {
            if let Some(n) = error_status_at(h, i) {
                return Some(n);
            }
        }
    }
    None
}

/// (batch 17) Words that open a server's account of a request it received ("[LM STUDIO SERVER]
/// Received request for /api/v1/chat with invalid JSON: ...", "Request body is not valid JSON").
const REQUEST_SUBJECTS: &[&str] = &["received request", "request body"];

/// Parse failures that are the response's when a client says them, and the request's when the
/// server says them of a request it received.
const JSON_FAULTS: &[&str] = &["invalid json", "malformed json", "not valid json"];

/// Whether a JSON parse failure is said of the request ([`REQUEST_SUBJECTS`] then one of
/// [`JSON_FAULTS`] in the same clause, within 80 bytes): the request's fault, not the reply's.
pub fn request_json_fault(hay: &str) -> bool {
    REQUEST_SUBJECTS.iter().any(|subject| {
        let mut from = 0;
        while let Some(at) = find_at(hay, subject, from) {
            from = at + subject.len();
            let mut end = hay.len().min(from + 80);
            while !hay.is_char_boundary(end) {
                end -= 1;
            }
            let clause = &hay[from..end];
            let clause = clause.split(['.', ';', '\n']).next().unwrap_or("");
            if JSON_FAULTS.iter().any(|f| clause.contains(f)) {
                return true;
            }
        }
        false
    })
}

/// (batch 26) A `JSONDecodeError` raised in a frame that decodes the request the server
/// received (`tables::decode::REQUEST_DECODE_FRAMES`): the request's body, not a reply.
pub fn request_decode_frame(hay: &str) -> bool {
    hay.contains("jsondecodeerror")
        && decode_rows::REQUEST_DECODE_FRAMES
            .iter()
            .any(|f| hay.contains(f))
}

/// "Invalid <name> API key" with one word naming whose key ("Invalid xAI API Key. Try
/// again?", "Invalid OpenAI API key"): the key was refused.
pub fn invalid_named_key(hay: &str) -> bool {
    invalid_named(hay, " api key")
}

/// "Invalid <name> config" with one word naming whose ("invalid tecent config", one-api's check
/// of a channel's settings): the set-up is wrong, nothing was sent.
pub fn invalid_named_config(hay: &str) -> bool {
    invalid_named(hay, " config") || invalid_named(hay, " configuration")
}

/// "invalid " + one word of 1 to 20 characters + `tail`, on word boundaries.
fn invalid_named(hay: &str, tail: &str) -> bool {
    let h = hay.as_bytes();
    let mut from = 0;
    while let Some(at) = find_at(hay, "invalid ", from) {
        from = at + "invalid ".len();
        if at > 0 && is_word(h[at - 1]) {
            continue;
        }
        let name = h[from..].iter().take_while(|c| is_word(**c)).count();
        if (1..=20).contains(&name) && hay[from + name..].starts_with(tail) {
            let end = from + name + tail.len();
            if end == h.len() || !is_word(h[end]) {
                return true;
            }
        }
    }
    false
}

/// (batch 26) Words a service puts before the status another service answered it (Go's
/// customary `fmt.Errorf("unexpected status code %d", ...)`: Sourcegraph's "fetching
/// subscription from SSC: unexpected status code 429" under its own 400; "unexpected status
/// 503", "unexpected response status 502", "received status code 429").
const RELAYED_STATUS_WORDS: &[&str] = &[
    "unexpected status code",
    "unexpected status",
    "unexpected response status",
    "unexpected http status",
    "received status code",
];

/// The status a service says another answered it (`RELAYED_STATUS_WORDS`), then the digits.
pub fn relayed_status(hay: &str) -> Option<u16> {
    let h = hay.as_bytes();
    RELAYED_STATUS_WORDS.iter().find_map(|w| {
        hay.match_indices(w).find_map(|(at, _)| {
            let mut i = at + w.len();
            while i < h.len() && matches!(h[i], b' ' | b':' | b'=') {
                i += 1;
            }
            (i + 3 == h.len() || h.get(i + 3).is_some_and(|c| !is_word(*c)))
                .then(|| error_status_at(h, i))
                .flatten()
        })
    })
}

/// The status a gateway says its upstream returned ("Error: Upstream returned 429", "Upstream
/// provider NIM returned HTTP 429"): "upstream", then "returned" within the same short clause,
/// then the status (after an optional "http" / "status" / "code").
pub fn upstream_status(hay: &str) -> Option<u16> {
    let h = hay.as_bytes();
    let mut from = 0;
    while let Some(at) = find_at(hay, "upstream", from) {
        from = at + "upstream".len();
        // The same clause: at most 40 bytes, and no sentence break in between.
        let window = h.len().min(from + 40);
        let clause_end = h[from..window]
            .iter()
            .position(|b| matches!(b, b'.' | b';' | b'\n'))
            .map_or(window, |p| from + p);
        let Some(r) = hay.get(from..clause_end).and_then(|c| c.find("returned")) else {
            continue;
        };
        let mut i = from + r + "returned".len();
        for word in [" http", " status", " code"] {
            if hay[i..].starts_with(word) {
                i += word.len();
            }
        }
        while i < h.len() && matches!(h[i], b' ' | b':') {
            i += 1;
        }
        if i + 3 == h.len() || h.get(i + 3).is_some_and(|c| !is_word(*c)) {
            if let Some(n) = error_status_at(h, i) {
                return Some(n);
            }
        }
    }
    None
}

/// The words that name a quota window of a day or more (`tables::LONG_WINDOW_PHRASES`).
pub fn long_window() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| {
        PhraseSet::new(
            super::tables::LONG_WINDOW_PHRASES
                .iter()
                .chain(words::LONG_WINDOW),
        )
    })
}

/// (batch 27) Whether the text names a window of a day or more in words, not counting a
/// window word that names a folder or file ("failed embedding: 5 Daily Notes/2022-11-14-Mon.md",
/// an Obsidian note path in a plugin's 429): the words after it reach a `/` and a file name.
pub fn long_window_in_words(hay: &str) -> bool {
    let set = long_window();
    let h = hay.as_bytes();
    set.ac.find_overlapping_iter(hay).any(|m| {
        let p = set.rows[m.pattern().as_usize()].text.as_bytes();
        let left_ok = !needs_left(p[0]) || m.start() == 0 || !is_word(h[m.start() - 1]);
        let right_ok = !is_word(p[p.len() - 1]) || m.end() == h.len() || !is_word(h[m.end()]);
        left_ok
            && right_ok
            && !names_a_path(&hay[m.end()..])
            && !(in_an_aside(&hay[..m.start()]) && short_window("", hay))
    })
}

/// Whether a position is inside an open parenthesis: a day window named as an aside to a
/// minute one is a list of the provider's windows, not the one exhausted (OpenAI's rate-limit
/// text as Bob's plugin translates it: "每分钟请求数（某些情况下是每天请求数）", requests per
/// minute (in some cases per day)).
fn in_an_aside(before: &str) -> bool {
    let open = before.rfind(['(', '（']);
    let close = before.rfind([')', '）']);
    open.is_some_and(|o| close.map_or(true, |c| c < o))
}

/// Whether the window word is a folder's name: at most one more word, then a `/` and a file
/// name with an extension (`daily notes/2022-11-14-mon.md`).
fn names_a_path(after: &str) -> bool {
    let Some((folder, rest)) = after.split_once('/') else {
        return false;
    };
    let file = rest.split(' ').next().unwrap_or("");
    folder.split_whitespace().count() <= 1
        && folder.len() <= 40
        && file.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// Whether an identifier in `text` has the CamelCase words `Per` + `Day` / `Week` / `Month`
/// (Gemini quota ids `GenerateRequestsPerDayPerProjectPerModel-FreeTier`, Google quota limits
/// `Gemini25ProRequestsPerDayPerUserPerTier`). Whole CamelCase words: `PerDayX` is no window,
/// and a lower-case `perday` inside another word is no evidence.
pub fn long_window_in_ids(text: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(p) = text[from..].find("Per") {
        let at = from + p;
        from = at + 3;
        // `Per` starts a CamelCase word: the text before it is not an upper-case run.
        if at > 0 && b[at - 1].is_ascii_uppercase() {
            continue;
        }
        for unit in ["Day", "Week", "Month"] {
            let end = from + unit.len();
            if text[from..].starts_with(unit)
                && !matches!(b.get(end), Some(c) if c.is_ascii_lowercase())
            {
                return true;
            }
        }
    }
    false
}

/// Whether the text names a quota window of a minute or a second: quota ids with the
/// CamelCase words `Per` + `Minute` / `Second` (Gemini `GenerateContentInputTokensPerModelPerMinute-FreeTier`)
/// or the words themselves. Such a quota refills within a retry budget whatever billing
/// boilerplate surrounds it ("You exceeded your current quota, please check your plan").
pub fn short_window(raw: &str, hay: &str) -> bool {
    let b = raw.as_bytes();
    let mut from = 0;
    while let Some(p) = raw[from..].find("Per") {
        let at = from + p;
        from = at + 3;
        if at > 0 && b[at - 1].is_ascii_uppercase() {
            continue;
        }
        for unit in ["Minute", "Second"] {
            let end = from + unit.len();
            if raw[from..].starts_with(unit)
                && !matches!(b.get(end), Some(c) if c.is_ascii_lowercase())
            {
                return true;
            }
        }
    }
    [
        "per minute",
        "per 1 minute",
        "per second",
        "rpm",
        "tpm",
        "每分钟",
    ]
    .iter()
    .any(|w| contains_phrase(hay, w))
}

/// gRPC status names as clients print them at the head of a message (grpc-java's
/// `StatusRuntimeException`: "UNAVAILABLE: io exception", "DEADLINE_EXCEEDED: deadline
/// exceeded after 9.99s"), and the failure each names (grpc.io/docs/guides/status-codes).
const GRPC_STATUS_NAMES: &[(&str, Category)] = &[
    ("UNAVAILABLE", Category::ServerError),
    ("DEADLINE_EXCEEDED", Category::Timeout),
    ("RESOURCE_EXHAUSTED", Category::RateLimited),
    ("INTERNAL", Category::ServerError),
    ("ABORTED", Category::ServerError),
    ("UNAUTHENTICATED", Category::Unauthorized),
    ("PERMISSION_DENIED", Category::Forbidden),
    ("INVALID_ARGUMENT", Category::BadRequest),
    ("FAILED_PRECONDITION", Category::BadRequest),
    ("NOT_FOUND", Category::NotFound),
    ("UNIMPLEMENTED", Category::NotFound),
    // The rest of the list (CANCELLED and UNKNOWN say nothing on their own).
    ("OUT_OF_RANGE", Category::BadRequest),
    ("ALREADY_EXISTS", Category::ClientError),
    ("DATA_LOSS", Category::ServerError),
];

/// The category of a gRPC status name that opens `message` followed by a colon.
pub fn grpc_status_prefix(message: &str) -> Option<Category> {
    let m = message.trim_start();
    // grpc-js prints the number first: "14 UNAVAILABLE: No connection established"
    // (`${code} ${Status[code]}: ${details}`, grpc-node packages/grpc-js/src/call.ts).
    let digits = m.bytes().take_while(u8::is_ascii_digit).count();
    let m = match m.get(digits..).and_then(|r| r.strip_prefix(' ')) {
        Some(rest) if (1..=2).contains(&digits) => rest,
        _ => m,
    };
    GRPC_STATUS_NAMES
        .iter()
        .find(|(name, _)| {
            m.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(':'))
        })
        .map(|(_, c)| *c)
}

/// A status printed before the words "status code", as openai-node words a bodiless answer
/// ("API Request Failed: 429 status code (no body)"), or before requests' "Client Error" /
/// "Server Error:" anywhere in a wrapper's text ("Error in generating tool call with model:
/// 422 Client Error: Unprocessable Entity for url: ...").
pub fn status_before_status_code(hay: &str) -> Option<u16> {
    let h = hay.as_bytes();
    for words in [" status code", " client error:", " server error:"] {
        let mut from = 0;
        while let Some(p) = hay[from..].find(words) {
            let at = from + p;
            from = at + 1;
            if at >= 3 && (at == 3 || !is_word(h[at - 4])) {
                if let Some(n) = error_status_at(h, at - 3) {
                    return Some(n);
                }
            }
        }
    }
    None
}

/// Whether a host could not start a program that is not there (`agents::PROGRAM_MISSING`):
/// "spawn <command> ENOENT" on one line, the command at most `PROGRAM_MISSING_SPAN` bytes.
pub fn program_missing(hay: &str) -> bool {
    agents::PROGRAM_MISSING.iter().any(|(head, tail)| {
        hay.match_indices(head).any(|(at, _)| {
            let rest = &hay[at + head.len()..];
            let line = rest.split('\n').next().unwrap_or("");
            line.find(tail)
                .is_some_and(|end| end <= agents::PROGRAM_MISSING_SPAN)
        })
    })
}

/// What a curl exit code a message reports says (`tables::CURL_CODES`): "curl: (92) ...", or a
/// code after "code" / "errcode" in a text that names curl or curl_cffi's "failed to perform".
pub fn curl_code(hay: &str) -> Option<Category> {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        // (batch 34a) PHP's curl binding and Guzzle print the code as "cURL error 52: Empty
        // reply from server"; Neovim's plenary as "curl error exit_code=52": read as "curl: (52)".
        regex::Regex::new(r"(?-u)curl: \(([0-9]{1,2})\)|\bcurl error (?:exit_code=)?([0-9]{1,2})\b|\b(?:errcode|code)[ :=]{0,3}([0-9]{1,2})\b")
            .expect("valid regex")
    });
    let curl = hay.contains("curl") || hay.contains("failed to perform");
    r.captures_iter(hay).find_map(|c| {
        let n: u16 = match (c.get(1).or(c.get(2)), c.get(3)) {
            (Some(m), _) => m.as_str().parse().ok()?,
            (None, Some(m)) if curl => m.as_str().parse().ok()?,
            _ => return None,
        };
        super::tables::CURL_CODES
            .iter()
            .find(|(code, _)| *code == n)
            .map(|(_, c)| *c)
    })
}

/// Replaces every link (`http://…`, `https://…`, up to the next blank or quote) with spaces, so
/// the words inside a URL are never read as evidence.
pub fn blank_links(hay: &mut String) {
    let mut links = Vec::new();
    let mut from = 0;
    while let Some(p) = hay[from..].find("http") {
        let start = from + p;
        let rest = &hay.as_bytes()[start..];
        let scheme = if rest.starts_with(b"https://") {
            8
        } else if rest.starts_with(b"http://") {
            7
        } else {
            from = start + 4;
            continue;
        };
        let b = hay.as_bytes();
        let mut end = start + scheme;
        while end < b.len()
            && !matches!(
                b[end],
                b' ' | b'\n' | b'\t' | b'\r' | b'"' | b'\'' | b'<' | b'>' | b')' | b']'
            )
        {
            end += 1;
        }
        // Keep a sentence's final full stop or comma out of the link.
        while end > start + scheme && matches!(b[end - 1], b'.' | b',' | b';') {
            end -= 1;
        }
        // Ends on a char boundary: the bytes that stop a link are ASCII.
        while !hay.is_char_boundary(end) {
            end += 1;
        }
        links.push(start..end);
        from = end;
    }
    for r in links {
        let spaces = " ".repeat(r.len());
        hay.replace_range(r, &spaces);
    }
}

/// A status at the very start of a message, in the forms clients print: google-genai's
/// "429 RESOURCE_EXHAUSTED. {...}", requests' "429 Client Error: Too Many Requests for url",
/// Net::HTTP's `503 "Service Unavailable"`.
pub fn leading_status(message: &str) -> Option<u16> {
    let m = message.trim_start().as_bytes();
    if m.len() < 5 || !m[..3].iter().all(u8::is_ascii_digit) || m[3] != b' ' {
        return None;
    }
    let n = error_status_at(m, 0);
    let rest = &m[4..];
    let word: &[u8] = &rest[..rest
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .unwrap_or(rest.len())];
    let introduces = rest[0] == b'"'
        || (word.len() >= 4 && word.iter().all(|c| c.is_ascii_uppercase() || *c == b'_'))
        || rest.starts_with(b"Client Error")
        || rest.starts_with(b"Server Error");
    n.filter(|_| introduces)
}

/// A byte that continues a word: letters, digits and `_` (so `max_tokens` is one word).
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether a phrase starting with `first` needs a word boundary before it. A phrase that
/// starts with `_` names the end of an identifier ("_api_key is not set" matches
/// `OPENAI_API_KEY is not set`), so it needs none.
fn needs_left(first: u8) -> bool {
    is_word(first) && first != b'_'
}

/// A WebSocket close code a message reports ("WebSocket closed 1006", "WebSocket closed with
/// reason: (1006).", python-websockets' "received 1011 (internal error)" and its frame log's
/// "< CLOSE 1008 (policy violation)" for a frame received, batch 36): four digits introduced
/// by one of those words, never a bare number. A code we "sent" is our own close (a keepalive
/// that timed out), not the server's word.
pub fn websocket_close_code(hay: &str) -> Option<u16> {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(
            r"(?-u)(?:websocket[a-z: ]{0,24}(?:closed|close|error)[a-z :=(]{0,16}|websocket connection[ :=]{1,3}|close code[ :=]{0,3}|closed with code[ :=]{0,3}|\breceived |^< close |\n< close )\(?(1[0-9]{3})\b",
        )
        .expect("valid regex")
    });
    r.captures(hay).and_then(|c| c[1].parse().ok())
}

fn find_at(hay: &str, needle: &str, from: usize) -> Option<usize> {
    hay[from..].find(needle).map(|p| from + p)
}

/// Whether `phrase` (lower-case) occurs in `hay` (lower-case) with word boundaries on both sides.
/// Boundaries are only required where the phrase itself begins or ends with a word character,
/// so "without `tool_result`" matches before a dot.
pub fn contains_phrase(hay: &str, phrase: &str) -> bool {
    let h = hay.as_bytes();
    let p = phrase.as_bytes();
    if p.is_empty() || p.len() > h.len() {
        return false;
    }
    let need_left = needs_left(p[0]);
    let need_right = is_word(p[p.len() - 1]);
    let mut from = 0;
    while let Some(start) = find_at(hay, phrase, from) {
        let end = start + p.len();
        let left_ok = !need_left || start == 0 || !is_word(h[start - 1]);
        let right_ok = !need_right || end == h.len() || !is_word(h[end]);
        if left_ok && right_ok {
            return true;
        }
        // Advance by one char boundary past `start`.
        from = start + hay[start..].chars().next().map_or(1, char::len_utf8);
        if from >= hay.len() {
            break;
        }
    }
    false
}

/// Finds an HTTP status (400-599) introduced by one of `introducers` ("error code: 429",
/// "HTTP 503", "status=502"): the first of [`status_in_text_all`]. Bare numbers are ignored.
pub fn status_in_text(hay: &str, introducers: &[&str]) -> Option<u16> {
    status_in_text_all(hay, introducers).into_iter().next()
}

/// Every HTTP status (400-599) introduced by one of `introducers`, in the order of the
/// introducers and then of the text.
pub fn status_in_text_all(hay: &str, introducers: &[&str]) -> Vec<u16> {
    let h = hay.as_bytes();
    let mut out = Vec::new();
    for intro in introducers {
        let mut from = 0;
        while let Some(start) = find_at(hay, intro, from) {
            let end = start + intro.len();
            from = end;
            if (start > 0 && is_word(h[start - 1])) || (end < h.len() && is_word(h[end])) {
                continue;
            }
            let mut i = end;
            while i < h.len() && i - end < 4 {
                match h[i] {
                    b' ' | b':' | b'=' | b'"' | b'\'' | b'(' | b'`' => i += 1,
                    // A middle dot between title and status ("Provider Error · 500").
                    0xC2 if h.get(i + 1) == Some(&0xB7) => i += 2,
                    _ => break,
                }
            }
            if i + 3 == h.len() || h.get(i + 3).is_some_and(|c| !is_word(*c)) {
                if let Some(n) = error_status_at(h, i) {
                    out.push(n);
                }
            }
        }
    }
    out
}

/// The error status (400 to 599) written by the three digits at `b[at..]`, if they are one.
fn error_status_at(b: &[u8], at: usize) -> Option<u16> {
    let d = b.get(at..at + 3)?;
    d.iter()
        .all(u8::is_ascii_digit)
        .then(|| d.iter().fold(0u16, |n, c| n * 10 + u16::from(c - b'0')))
        .filter(|n| (400..=599).contains(n))
}

/// A status printed right before the body it came with: the Anthropic TypeScript SDK's
/// "InternalServerError: 529 {\"type\":\"error\",...}", RubyLLM's "429 {...}", Spring AI's
/// "404 - <!DOCTYPE html>..." and "400 - {...}".
pub fn status_before_body(message: &str) -> Option<u16> {
    let m = message.as_bytes();
    (0..m.len().saturating_sub(4)).find_map(|i| {
        let after = match &m[i + 3..] {
            [b' ', b'-', b' ', rest @ ..] => rest,
            [b' ', rest @ ..] => rest,
            _ => return None,
        };
        let spring = m[i + 4] == b'-';
        let framed = (i == 0 || !is_word(m[i - 1]))
            && !port_at(m, i)
            && after
                .first()
                .is_some_and(|c| matches!(c, b'{' | b'[') || (spring && *c == b'<'));
        framed.then(|| error_status_at(m, i)).flatten()
    })
}

/// (batch 26) Whether the digits at `i` are a port after an address ("peer
/// ipv4:158.160.54.160:443 {grpc_message:...}" in grpc-core's debug_error_string, "[::1]:443"):
/// a number there is never the answer's status.
pub fn port_at(h: &[u8], i: usize) -> bool {
    i >= 2 && h[i - 1] == b':' && (h[i - 2].is_ascii_digit() || h[i - 2] == b']')
}

/// The status of an aiohttp `ClientResponseError` quoted inside another error: aiohttp prints
/// "429, message='Too Many Requests', url='...'" (an app re-raising it as its own 400).
pub fn quoted_aiohttp_status(message: &str) -> Option<u16> {
    let i = message.find(", message=")?;
    let head = &message.as_bytes()[..i];
    let at = head.len().checked_sub(3)?;
    let before_ok = at == 0 || !is_word(head[at - 1]);
    // aiohttp's parser errors carry a code of their own ("<TransferEncodingError: 400,
    // message='Not enough data for satisfy transfer length header.'>" inside a
    // ClientPayloadError): a body cut short, not the server's status.
    let parser_error = ["EncodingError: ", "LengthError: ", "HttpMessage: "]
        .iter()
        .any(|e| message[..at].ends_with(e));
    (before_ok && !parser_error)
        .then(|| error_status_at(head, at))
        .flatten()
}

/// Lower-cases ASCII, bounded: huge bodies are only scanned in their first `limit` bytes.
pub fn lower_bounded(s: &str, limit: usize) -> String {
    let h = head(s, limit);
    // Cyrillic, Greek and accented Latin capitals ("Слишком много запросов", "Límite") read as
    // their lower case too; ASCII text (nearly all of it) keeps the cheap path.
    if h.is_ascii() {
        h.to_ascii_lowercase()
    } else {
        h.to_lowercase()
    }
}

/// The first `limit` bytes of `s`, cut at a character boundary.
pub fn head(s: &str, limit: usize) -> &str {
    let mut end = s.len().min(limit);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// (batch 25) The status an HTML error page puts first in its title ("<title>429</title>",
/// "<title>503 Service Unavailable</title>"), in lower-case text.
pub fn html_title_status(hay: &str) -> Option<u16> {
    hay.match_indices("<title>").find_map(|(at, tag)| {
        let rest = hay[at + tag.len()..].trim_start();
        let digits = rest.get(..3)?;
        let after = rest[3..].chars().next();
        (digits.bytes().all(|b| b.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    })
}

/// (batch 35a) A pydantic schema error about a request model ("validation error for
/// ChatCompletionRequest", "validation errors for CompletionRequest"): the server validated
/// what it was sent. `hay` is lower-case.
pub fn request_schema_error(hay: &str) -> bool {
    ["validation error for ", "validation errors for "]
        .iter()
        .any(|lead| {
            hay.match_indices(lead).any(|(at, _)| {
                let rest = &hay[at + lead.len()..];
                let name_end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                rest[..name_end].ends_with("request")
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (batch 26) grpc-core's debug_error_string names the peer with its port before its
    /// fields; a status before a body still reads.
    #[test]
    fn a_server_decoding_the_request_it_received() {
        assert!(request_decode_frame("file \"app.py\", line 9, in chat\n    payload = await request.json()\njson.decoder.jsondecodeerror: expecting value: line 1 column 1 (char 0)"));
        assert!(request_decode_frame(
            "data = json.loads(body_str)\n json.decoder.jsondecodeerror: expecting value"
        ));
        // A client decoding a reply is not the request's fault.
        assert!(!request_decode_frame(
            "data = json.loads(response.text)\njson.decoder.jsondecodeerror: expecting value"
        ));
    }

    #[test]
    fn a_status_another_service_answered() {
        assert_eq!(
            relayed_status("reason fetching subscription from ssc: unexpected status code 429"),
            Some(429)
        );
        assert_eq!(
            relayed_status("upstream: unexpected status 503: service unavailable"),
            Some(503)
        );
        assert_eq!(
            relayed_status("unexpected response status 502 from origin"),
            Some(502)
        );
        assert_eq!(relayed_status("unexpected status code 4290"), None);
        assert_eq!(relayed_status("unexpected status quo"), None);
    }

    #[test]
    fn a_port_before_a_body_is_no_status() {
        assert_eq!(
            status_before_body("UNKNOWN:Error received from peer ipv4:158.160.54.160:443 {grpc_message:\"x\", grpc_status:8}"),
            None
        );
        assert_eq!(
            status_before_body("peer ipv6:[::1]:443 {grpc_status:3}"),
            None
        );
        assert_eq!(status_before_body("Error: 429 {\"error\":{}}"), Some(429));
    }

    #[test]
    fn phrases_match_whole_words_only() {
        assert!(contains_phrase(
            "connection refused by peer",
            "connection refused"
        ));
        assert!(!contains_phrase("we connected fine", "connection"));
        assert!(!contains_phrase("max_tokens 1500", "500"));
        assert!(contains_phrase("error: timeout.", "timeout"));
        assert!(!contains_phrase("read_timeout_ms", "timeout"));
        assert!(contains_phrase(
            "ids were found without `tool_result` blocks",
            "without `tool_result`"
        ));
    }

    #[test]
    fn phrase_sets_agree_with_the_slow_scan() {
        use crate::classify::tables::PERMANENT_PHRASES;
        for hay in [
            "invalid api key for connection",
            "tool_use ids were found without `tool_result` blocks",
            "prompt is too long",
            "we connected",
            "billing_details",
            "nothing",
        ] {
            let slow = PERMANENT_PHRASES
                .iter()
                .find(|p| contains_phrase(hay, p.text))
                .map(|p| p.category);
            assert_eq!(permanent().first(hay).map(|p| p.category), slow, "{hay}");
        }
    }

    #[test]
    fn status_needs_an_introducer() {
        assert_eq!(
            status_in_text("error code: 429 - {...}", &["error code"]),
            Some(429)
        );
        assert_eq!(
            status_in_text("max_tokens: 1500", &["error code", "code"]),
            None
        );
        assert_eq!(
            status_in_text("http 503 service unavailable", &["http"]),
            Some(503)
        );
        assert_eq!(status_in_text("status 5000", &["status"]), None);
        assert_eq!(status_in_text("status 200", &["status"]), None);
    }
}

#[cfg(test)]
mod link_tests {
    use super::*;

    #[test]
    fn links_are_blanked_not_their_sentence() {
        let mut h =
            "upgrade at https://console.groq.com/settings/billing. billing is fine".to_owned();
        blank_links(&mut h);
        assert!(!h.contains("settings"));
        assert!(h.ends_with(". billing is fine"));
        let mut h = "see (http://x.y/billing) and 'https://a/b'".to_owned();
        blank_links(&mut h);
        assert!(!h.contains("billing"));
        let mut h = "https://é/billing http".to_owned();
        blank_links(&mut h);
        assert!(!h.contains("billing"));
    }

    #[test]
    fn statuses_before_words_and_grpc_names() {
        assert_eq!(
            status_before_status_code("api request failed: 429 status code (no body)"),
            Some(429)
        );
        assert_eq!(status_before_status_code("took 1500 status code"), None);
        assert_eq!(
            grpc_status_prefix("UNAVAILABLE: io exception"),
            Some(Category::ServerError)
        );
        assert_eq!(grpc_status_prefix("UNAVAILABLE service"), None);
        assert_eq!(
            quoted_aiohttp_status(
                "payload is not completed: <TransferEncodingError: 400, message='x'>"
            ),
            None
        );
        assert_eq!(
            quoted_aiohttp_status("ClientResponseError: 429, message='Too Many Requests'"),
            Some(429)
        );
        assert!(short_window(
            "GenerateRequestsPerMinutePerProjectPerModel",
            ""
        ));
        assert!(!short_window("GenerateRequestsPerMinutes", ""));
        assert!(short_window("", "limit of 3 requests per minute"));
    }

    #[test]
    fn leading_statuses() {
        assert_eq!(
            leading_status("429 RESOURCE_EXHAUSTED. {'error': {}}"),
            Some(429)
        );
        assert_eq!(
            leading_status("429 Client Error: Too Many Requests for url: x"),
            Some(429)
        );
        assert_eq!(leading_status("503 \"Service Unavailable\""), Some(503));
        assert_eq!(leading_status("500 tokens were used"), None);
        assert_eq!(leading_status("200 OK"), None);
        assert_eq!(leading_status("42"), None);
    }
}

#[cfg(test)]
mod stated_status_tests {
    use super::*;

    #[test]
    fn statuses_stated_in_words() {
        assert_eq!(
            reqwest_status(
                "HTTP status client error (451 Unavailable For Legal Reasons) for url (x)"
            ),
            Some(451)
        );
        assert_eq!(
            reqwest_status("HTTP status server error (503 Service Unavailable) for url (x)"),
            Some(503)
        );
        assert_eq!(reqwest_status("HTTP status client error (abc)"), None);
        assert_eq!(error_space_status("deepinfra server: error 500"), Some(500));
        // Only "error", one space, three digits that end there.
        assert_eq!(error_space_status("server error: 401 client error"), None);
        assert_eq!(error_space_status("error 5000 tokens"), None);
        assert_eq!(error_space_status("terror 500"), None);
        assert_eq!(
            upstream_status("code: 400\nerror: upstream returned 429"),
            Some(429)
        );
        assert_eq!(
            upstream_status("upstream provider nim returned http 503."),
            Some(503)
        );
        assert_eq!(upstream_status("upstream returned 4290 rows"), None);
        assert_eq!(
            upstream_status("the upstream is fine; it returned 429 rows later on and on"),
            None
        );
    }

    #[test]
    fn a_json_fault_said_of_the_request() {
        assert!(request_json_fault(
            "[lm studio server] received request for /api/v1/chat with invalid json: expected ','"
        ));
        assert!(request_json_fault("request body is not valid json"));
        assert!(!request_json_fault(
            "failed to parse response: invalid json"
        ));
        assert!(!request_json_fault(
            "received request. the reply was invalid json"
        ));
    }

    #[test]
    fn a_named_key_refused() {
        assert!(invalid_named_key("invalid xai api key. try again?"));
        assert!(invalid_named_key("invalid openai api key"));
        assert!(!invalid_named_key("invalid api key"));
        assert!(!invalid_named_key("invalid request to the api keyring"));
        assert!(!invalid_named_key("an invalid xai api keystore"));
    }

    #[test]
    fn a_window_names_a_rate() {
        let w = rate_window();
        assert!(w
            .first("tokens per minute limit exceeded - too many tokens processed.")
            .is_some());
        assert!(w.first("too many tokens for this model").is_none());
    }
}

/// (batch 19) A reply said to lack what the client needed: "no <one or two words> in (the)
/// response" (Goose's "No usage data in response", "No choices in response", "no content in the
/// model response") or "missing from the response": the answer came without it, an invalid
/// response. "no response" alone is no such clause (a timeout or a connection says it).
pub fn reply_lacks(hay: &str) -> bool {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(
            r"(?-u)\bno ([a-z_]+(?: [a-z_]+)?) (?:in|from) (?:the )?(?:llm |model |api |provider )?response\b|\b(?:missing|absent) (?:from|in) (?:the )?(?:llm |model |api |provider )?response\b",
        )
        .expect("valid regex")
    });
    // What is missing is the reply's, not an error's own details ("Unknown error (no error
    // details in response)": a failure that hides its cause).
    r.captures_iter(head(hay, super::MAX_SCAN)).any(|c| {
        !c.get(1)
            .is_some_and(|what| what.as_str().starts_with("error"))
    })
}

/// (batch 19) Pydantic's "validation error(s) for <Model>" naming a reply's model
/// (`agents::REPLY_MODEL_SUFFIXES`: `LLMResultChunk`, `ChatCompletion`,
/// `GenerateContentResponse`).
pub fn reply_model_validation(hay: &str) -> bool {
    validated_model_ends_in(hay, agents::REPLY_MODEL_SUFFIXES, false)
}

/// (batch 24) Pydantic's "validation error(s) for <Model>" naming a model of the app's own
/// parameters or settings (`agents::SETUP_MODEL_SUFFIXES`: Dify's agent strategy `ReActParams`).
pub fn setup_model_validation(hay: &str) -> bool {
    // (A model named just `Settings` is pydantic-settings' usual one: the word alone will do.)
    validated_model_ends_in(hay, agents::SETUP_MODEL_SUFFIXES, true)
}

/// Whether a pydantic "validation error(s) for <Model>" names a model ending in one of
/// `suffixes` (lower-case), longer than the suffix itself unless `alone` allows the bare word.
fn validated_model_ends_in(hay: &str, suffixes: &[&str], alone: bool) -> bool {
    ["validation error for ", "validation errors for "]
        .iter()
        .any(|intro| {
            hay.match_indices(intro).any(|(at, _)| {
                let name: String = hay[at + intro.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                suffixes
                    .iter()
                    .any(|s| (alone || name.len() > s.len()) && name.ends_with(s))
            })
        })
}

/// (batch 24) MiniMax's code as its clients print it, at the end of the status message in
/// parentheses ("invalid params, ... (2013)", "conn limit (1041)", "rate growth limit (2045)
/// (request_id:05db5d...)"): the number of its `base_resp.status_code` (1000-1999, 2000-2999,
/// 20132), read only at the very end of the text.
pub fn minimax_trailing_code(message: &str) -> Option<u32> {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(
            r"(?-u)\(([12][0-9]{3}|20132)\)(?:\s*\(request_id:\s*[0-9a-zA-Z_-]*\))?\s*$",
        )
        .expect("valid regex")
    });
    // Only the tail is searched (the code ends the text), cut on a character boundary.
    let start = (message.len().saturating_sub(200)..message.len())
        .find(|i| message.is_char_boundary(*i))
        .unwrap_or(message.len());
    r.captures(&message[start..])
        .and_then(|c| c[1].parse().ok())
}

/// (batch 29) A snake_case error code run onto the message it names, as Cline prints
/// `${code}${message}` ("stream_initialization_failedFailed to create stream"): the code and
/// the message apart, lower-cased, so each is read on its own word boundaries. None when the
/// message does not start so.
pub fn code_run_on(message: &str) -> Option<String> {
    let m = message.trim_start();
    let code_len = m
        .bytes()
        .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
        .count();
    let code = &m[..code_len];
    let rest = &m[code_len..];
    let split = code.contains('_')
        && !code.starts_with('_')
        && rest.as_bytes().first().is_some_and(u8::is_ascii_uppercase);
    split.then(|| format!("{code} {rest}").to_lowercase())
}

/// (batch 31b) The status a retry loop names for its last attempt when it gives up ("All 2
/// attempts failed. Last error: HTTP 400 Bad Request: ..."; the AI SDK's "Failed after 3
/// attempts. Last error: ..."): "last error", then an optional "http" / "status" / "code",
/// then the digits.
pub fn last_error_status(hay: &str) -> Option<u16> {
    let h = hay.as_bytes();
    hay.match_indices("last error").find_map(|(at, w)| {
        let mut i = at + w.len();
        while i < h.len() && matches!(h[i], b' ' | b':' | b'=') {
            i += 1;
        }
        for word in ["http", "status code", "status", "code"] {
            if hay[i..].starts_with(word) {
                i += word.len();
                break;
            }
        }
        while i < h.len() && matches!(h[i], b' ' | b':' | b'=') {
            i += 1;
        }
        (i + 3 == h.len() || h.get(i + 3).is_some_and(|c| !is_word(*c)))
            .then(|| error_status_at(h, i))
            .flatten()
    })
}

/// (batch 31b) OpenAI's and Groq's "Request too large ... Limit 250000, Requested 546": the
/// two figures, when the text states both. A request under its per-minute limit fits the
/// window once the window drains; only one over it can never pass.
pub fn limit_and_requested(hay: &str) -> Option<(u64, u64)> {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r"(?-u)\blimit:? ([0-9][0-9,]{0,14}),(?: used [0-9][0-9,]{0,14},)? requested:? ([0-9][0-9,]{0,14})\b")
            .expect("valid regex")
    });
    let c = r.captures(hay)?;
    let n = |s: &str| s.replace(',', "").parse::<u64>().ok();
    Some((n(&c[1])?, n(&c[2])?))
}

/// (batch 31b) A timeout exception's class quoted in a wrapper's words ("... - TimeoutError:
/// Request timed out."): whether a name with "Timeout" in it, followed by ": ", is one `is`
/// accepts (the class table's timeouts).
pub fn quotes_class(message: &str, is: impl Fn(&str) -> bool) -> bool {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r"(?-u)\b((?:[A-Za-z_][A-Za-z0-9_.]{0,80})?Time[oO]ut[A-Za-z]{0,16}): ")
            .expect("valid regex")
    });
    let mut end = message.len().min(super::MAX_SCAN);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    r.captures_iter(&message[..end])
        .take(8)
        .any(|c| c.get(1).is_some_and(|m| is(m.as_str())))
}

/// (batch 31b) Pydantic's "validation error for <scalar>" where the scalar is a builtin type
/// (`datetime`, `int`, `str`...) given `None` ("1 validation error for datetime\n  Input should
/// be a valid datetime [type=datetime_type, input_value=None"): an SDK reading one field of a
/// reply (a completion's `created`) that the reply lacks. An app's schema for the model's
/// output is a model of its own, named as a class.
pub fn scalar_given_none(hay: &str) -> bool {
    const SCALARS: &[&str] = &["datetime", "date", "int", "float", "str", "bool", "decimal"];
    hay.contains("input_value=none")
        && ["validation error for ", "validation errors for "]
            .iter()
            .any(|intro| {
                hay.match_indices(intro).any(|(at, _)| {
                    let rest = &hay[at + intro.len()..];
                    let name: &str = rest
                        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                        .next()
                        .unwrap_or("");
                    SCALARS.contains(&name)
                })
            })
}

/// (batch 33b) A not-found raised by a plugin's own Lua code: Lua's `error()` puts the chunk's
/// name and line before its words ("CopilotChat/client.lua:440: Model not found: gpt-4o"), so
/// the words are the plugin's check against its own model list, not a provider's answer.
pub fn not_found_at_lua_frame(hay: &str) -> bool {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    R.get_or_init(|| regex::Regex::new(r"\.lua:\d+: [^:\n]*\bnot found\b").expect("pattern"))
        .is_match(hay)
}

/// (batch 35b) The fetch API's network failure wherever an app puts it: each engine's own
/// words (`tables::UNDICI_TYPE_ERRORS`: Chromium "Failed to fetch", Firefox "NetworkError when
/// attempting to fetch resource.", WebKit "Load failed", undici "fetch failed") standing as a
/// whole clause — after a colon, a quote, a bracket or a line break, and before the end, a stop,
/// a quote, a bracket, a comma, a line break, a stack frame or @google/genai's "sending
/// request" ("Langchain error: TypeError: Failed to fetch.", `"message": "Failed to fetch"`,
/// "[TypeError: fetch failed] { cause: ... }", "Error fetching from <url>: Load failed").
/// Words that go on ("Failed to fetch models list", "fetch failed: 502") are another clause;
/// WebKit's bare "Load failed" counts only after words of a request or a fetch ("Model load
/// failed" is no fetch) or as a line of its own ending the message (batch 29: "API 请求失败：
/// \nTXT\nLoad failed", Chatbox on Safari). The caller lets a more specific cause stated beside it decide.
pub fn fetch_failure(message: &str) -> Option<Category> {
    let m = message.to_lowercase();
    super::tables::UNDICI_TYPE_ERRORS
        .iter()
        .filter(|(w, _)| *w != "terminated")
        .find_map(|(w, c)| {
            let w = w.trim_end_matches('.');
            m.match_indices(w).find_map(|(at, _)| {
                let head = &m[..at];
                let after = &m[at + w.len()..];
                // (batch 33b) or, ending the message, after a space when the head says a
                // request failed ("API Request Failed - TXT Load Failed", lines joined).
                let ends_request = after.trim_end_matches(['.', '!']).trim().is_empty()
                    && head.ends_with(char::is_whitespace)
                    && ["request", "请求"].iter().any(|r| head.contains(r));
                let opens = ends_request
                    || head.trim_end_matches(' ').is_empty()
                    || head
                        .trim_end_matches(' ')
                        .ends_with([':', '：', '"', '\'', '[', '(', '`', '\n']);
                let closes = after.is_empty()
                    || after.starts_with(['.', '"', '\'', ']', ')', ',', '`', '!', '\n', '\r'])
                    || after.starts_with(" at ")
                    || after.starts_with(" sending request");
                // (batch 29) or as the whole last line under a frame in any language.
                let last_line = head.ends_with('\n') && after.trim().is_empty();
                let of_fetch = w != "load failed"
                    || last_line
                    || ["request", "请求", "fetch", "typeerror", "http"]
                        .iter()
                        .any(|r| head.contains(r));
                (opens && closes && of_fetch).then_some(*c)
            })
        })
}
