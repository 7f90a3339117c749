//! `classify(failure)`: weighs the evidence in the contract's order (CONTRACT §2):
//! cancellation, `x-should-retry`, the status refined by the body, the exception class chain,
//! the transport hint, and last the message text.

pub mod body;
pub mod names;
pub mod nearby;
pub mod tables;
pub mod text;

use std::time::SystemTime;

use crate::category::{Category, Classification, Evidence, RetryAfterSource};
use crate::failure::{Failure, Transport};
use crate::retry_after;
use body::ProviderError;
use tables::ClassRule;

/// Only the head of a huge message or body is scanned for phrases.
pub(crate) const MAX_SCAN: usize = 64 * 1024;

/// Classifies one failure. Total and deterministic (the wall clock only enters through HTTP-date
/// and timestamp headers; use [`classify_at`] to pin it).
pub fn classify(failure: &Failure) -> Classification {
    classify_at(failure, SystemTime::now())
}

/// [`classify`] with an explicit "now" for date-valued headers.
pub fn classify_at(failure: &Failure, now: SystemTime) -> Classification {
    let headers = HeaderFacts::of(failure);
    let classes = ClassFacts::of(&failure.error_class);
    let provider = provider_error(failure, &headers, &classes);
    let api_error = classes.api_error;
    let hay = Hay::new(failure, provider.as_ref());
    let (category, evidence) = decide(failure, provider.as_ref(), &classes, &hay);
    // Words that say nothing else but ask the reader to wait a stated time ("All accounts are
    // currently limited. Please wait 8s.", a pasted tail "... Please try again in 20s.") name a
    // throttle: the one failure whose remedy is waiting.
    let (category, evidence) = match category {
        Category::Unknown => match retry_after::instructed_wait(&failure.message)
            .or_else(|| retry_after::instructed_wait(hay.get()))
        {
            Some(secs) if secs >= LONG_WAIT_SECS => (Category::PaymentRequired, Evidence::Message),
            Some(_) => (Category::RateLimited, Evidence::Message),
            // Nothing decided at all: the last readings (`last_words`).
            None if evidence == Evidence::Nothing => {
                last_words(failure, provider.as_ref(), &hay).unwrap_or((category, evidence))
            }
            None => (category, evidence),
        },
        // (batch 29) A rate limit whose words ask for a wait of a day or more, stated in hours
        // or days ("Please wait 269 hours 20 minutes", Copilot): a quota of a day or more
        // (CONTRACT §2), payment; no retry budget waits it out.
        Category::RateLimited
            if retry_after::wait_in_hours_or_days(&failure.message)
                .is_some_and(|secs| secs >= DAY_SECS) =>
        {
            (Category::PaymentRequired, Evidence::Message)
        }
        _ => (category, evidence),
    };
    // (batch 19) A model not found in the client's own list of providers and models (it offers
    // suggestions: `agents::LOCAL_REGISTRY_WORDS`), with no status and no provider's envelope,
    // whichever layer (a class's name, the words) said not found: the configured model string
    // is wrong, set-up. A provider's 404 stays `not_found`.
    let category = match category {
        Category::NotFound
            if failure.status.is_none() && local_registry(provider.as_ref(), &hay) =>
        {
            Category::Configuration
        }
        c => c,
    };
    // (batch 31b) "Request too large ... on tokens per min (TPM): Limit 250000, Requested 546":
    // a request under its per-minute limit is throttled, not too large; it passes once the
    // window drains. Only a request over the limit can never pass (the figures decide).
    let category = match category {
        Category::ContextOverflow
            if text::rate_limit().first(hay.get()).is_some()
                && text::limit_and_requested(hay.get())
                    .is_some_and(|(limit, asked)| asked <= limit) =>
        {
            Category::RateLimited
        }
        c => c,
    };
    // A generic server failure whose text names an overload anywhere is one, whichever layer
    // (a status, a wrapper's class, a stream's words) said "server error" first.
    let category = if category == Category::ServerError && says_overloaded(&hay) {
        Category::Overloaded
    } else {
        category
    };
    // (batch 32b) A connection or server failure the words place after the answer had started
    // ("The response was cancelled mid-stream", "Server error mid-response",
    // `tables::stated_refusals::MID_ANSWER`): a stream cut mid-answer (CONTRACT §2).
    let category = match category {
        Category::Connection | Category::ServerError if mid_answer(&hay) => {
            Category::StreamInterrupted
        }
        c => c,
    };
    // (batch 35a) A WebSocket close frame is the peer's act: an abort named in its reason
    // ("WebSocket closed 1008: The operation was aborted", a proxy's session-age ceiling on
    // Gemini Live, autonomous-ai/autonomous-os#238) is the far end dropping the session, a
    // connection that a reconnect repairs. A cancel is only the caller's own (CONTRACT §2).
    let category = match category {
        Category::Cancelled
            if text::websocket_close_code(hay.get())
                .is_some_and(|c| (1001..=1015).contains(&c)) =>
        {
            Category::Connection
        }
        c => c,
    };
    // A rate limit whose window is a day or more is a quota no retry budget outlasts
    // (CONTRACT §2): read from quota ids and the text.
    let category = if category == Category::RateLimited && long_window(failure, &hay) {
        Category::PaymentRequired
    } else {
        category
    };
    // (batch 20) An allowance that names its reset, with a wait of under an hour stated ("Your
    // quota will reset after 20s"): a rate limit, whose stated wait is the remedy
    // (`tables::stated_faults::RESETTING_ALLOWANCES`; hours away stay payment).
    let category = if category == Category::PaymentRequired && allowance_resets_soon(failure, &hay)
    {
        Category::RateLimited
    } else {
        category
    };

    let mut transient = category.is_transient();
    if category != Category::Cancelled {
        if let Some(explicit) = headers.should_retry {
            transient = explicit;
        }
    }

    // A header's instruction wins; else a wait the body or the words state (for a failure worth
    // retrying); else a reset hint, which only speaks about rate limits.
    let header = retry_after::from_headers(&failure.headers, now);
    let (retry_after, retry_after_source) = match header {
        Some((secs, RetryAfterSource::Header)) => (Some(secs), Some(RetryAfterSource::Header)),
        hint => match stated_wait(failure, &hay).filter(|_| category.is_transient()) {
            Some((secs, src)) => (Some(secs), Some(src)),
            None => match hint {
                Some((_, RetryAfterSource::ResetHint)) if category != Category::RateLimited => {
                    (None, None)
                }
                Some((secs, src)) => (Some(secs), Some(src)),
                None => (None, None),
            },
        },
    };

    let status = failure
        .status
        .or_else(|| provider.as_ref().and_then(|p| p.numeric_code));
    let error_type = match category {
        Category::Programming => short_class_name(failure.error_class.first().map(String::as_str))
            .unwrap_or_else(|| category.error_type().to_owned()),
        Category::Unknown if api_error || status.is_some() => "UnknownAPIError".to_owned(),
        _ => category.error_type().to_owned(),
    };

    Classification {
        category,
        transient,
        retry_after,
        retry_after_source,
        error_type,
        status,
        evidence,
        api_error,
    }
}

/// `x-should-retry` as the contract reads it: only `true` / `false`, trimmed, any case.
fn should_retry_value(v: &str) -> Option<bool> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("true") {
        Some(true)
    } else if v.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// The two headers classification itself reads, found in one pass over the headers.
struct HeaderFacts<'a> {
    /// AWS names the error type in a header too (`x-amzn-errortype: ThrottlingException:http://...`).
    amzn_error_type: Option<&'a str>,
    /// `x-should-retry: true|false` (OpenAI and Anthropic servers send it); anything else is
    /// ignored.
    should_retry: Option<bool>,
}

impl<'a> HeaderFacts<'a> {
    fn of(f: &'a Failure) -> Self {
        let (mut amzn, mut should) = (None, None);
        // The first value of each name counts, as `Headers::get` finds it.
        for (k, v) in f.headers.iter() {
            if amzn.is_none() && k.eq_ignore_ascii_case("x-amzn-errortype") {
                amzn = Some(v);
            } else if should.is_none() && k.eq_ignore_ascii_case("x-should-retry") {
                should = Some(v);
            }
            if amzn.is_some() && should.is_some() {
                break;
            }
        }
        HeaderFacts {
            amzn_error_type: amzn,
            should_retry: should.and_then(should_retry_value),
        }
    }
}

/// The provider's error: from the body, else from the envelope the exception's text quotes;
/// AWS's code is added from its header and from botocore's generated class name.
fn provider_error(
    f: &Failure,
    headers: &HeaderFacts,
    classes: &ClassFacts,
) -> Option<ProviderError> {
    let mut p = f
        .body
        .as_deref()
        .and_then(body::parse)
        .or_else(|| body::from_text(before_schema_cause(&f.message)))
        .or_else(|| bare_code(&f.message))
        .or_else(|| minimax_text_code(&f.message));
    // Cloudflare Workers AI's code printed at the head of the words: the provider's own code
    // goes first, ahead of the catch-all code of the envelope around it.
    let head = body::cloudflare_head(&f.message).or_else(|| {
        p.as_ref()
            .and_then(|p| p.message.as_deref())
            .and_then(body::cloudflare_head)
    });
    if let Some(code) = head {
        let p = p.get_or_insert_with(ProviderError::default);
        if !p.codes.contains(&code) {
            p.codes.insert(0, code);
        }
        p.has_error = true;
    }
    for code in [headers.amzn_error_type, classes.aws_code]
        .into_iter()
        .flatten()
    {
        let p = p.get_or_insert_with(ProviderError::default);
        let code = body::normalize_code(code);
        if !code.is_empty() && !p.codes.contains(&code) {
            p.codes.push(code);
        }
        p.has_error = true;
    }
    p
}

/// A message that is nothing but a provider's error code (`exceed_context_size_error`,
/// `insufficient_quota`), as clients that log only the type print it: read as that code.
fn bare_code(message: &str) -> Option<ProviderError> {
    let m = message.trim().trim_end_matches(['.', '!']);
    let shaped = m.contains('_')
        && m.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && m.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !shaped {
        return None;
    }
    let code = body::normalize_code(m);
    tables::code_row(&code)?;
    Some(ProviderError {
        codes: vec![code],
        has_error: true,
        ..ProviderError::default()
    })
}

/// (batch 24) A MiniMax code at the end of a message with no envelope (`text::
/// minimax_trailing_code`), read as its `base_resp` code where MiniMax's table has it.
fn minimax_text_code(message: &str) -> Option<ProviderError> {
    let n = text::minimax_trailing_code(message)?;
    let code = format!("base_resp_{n}");
    tables::code_row(&code)?;
    Some(ProviderError {
        codes: vec![code],
        has_error: true,
        ..ProviderError::default()
    })
}

/// The wait a failure's body states as data (Gemini's RetryInfo) or its words state ("Please
/// try again in 6.5s"), with where it came from.
fn stated_wait(f: &Failure, hay: &Hay) -> Option<(f64, RetryAfterSource)> {
    let body = f.body.as_deref().unwrap_or("");
    if let Some(s) = retry_after::from_body(body)
        .or_else(|| retry_after::from_body(&f.message))
        .or_else(|| text::proto_retry_delay(&f.message))
        .or_else(|| retry_after::reset_field(body))
        .or_else(|| retry_after::reset_field(&f.message))
    {
        return Some((s, RetryAfterSource::Body));
    }
    retry_after::from_text(&f.message)
        .or_else(|| retry_after::from_text(hay.get()))
        .map(|s| (s, RetryAfterSource::Message))
}

/// Whether a rate limit names a window of a day or more: in its words
/// (`tables::LONG_WINDOW_PHRASES`) or in a quota id's CamelCase words (`...PerDay...`).
fn long_window(f: &Failure, hay: &Hay) -> bool {
    text::long_window_in_words(hay.get())
        || text::long_window_in_ids(f.body.as_deref().unwrap_or(""))
        || text::long_window_in_ids(&f.message)
        // (batch 24) A reset the body states as data that no retry budget waits for (Codex's
        // 429 usage_limit_reached, "resets_in_seconds": 529498, six days).
        || retry_after::reset_field(f.body.as_deref().unwrap_or(""))
            .or_else(|| retry_after::reset_field(&f.message))
            .is_some_and(|secs| secs >= LONG_WAIT_SECS)
}

/// (batch 20) An allowance the text says resets, within a stated wait of under an hour, and no
/// word of money or of a day's window.
fn allowance_resets_soon(f: &Failure, hay: &Hay) -> bool {
    tables::stated_faults::RESETTING_ALLOWANCES
        .iter()
        .any(|w| text::contains_phrase(hay.get(), w))
        && stated_wait(f, hay).is_some_and(|(secs, _)| secs < 3600.0)
        && !long_window(f, hay)
        && !tables::BILLING_HINTS
            .iter()
            .any(|w| text::contains_phrase(hay.get(), w))
}

/// A wait this long, stated by words that say nothing else ("All accounts are currently
/// limited. Please wait 84152s."), is a day's quota in other words: no retry budget waits half
/// a day. (A status's own retry hint is not read so: Azure's S0 429 says "retry after 86400
/// seconds" of a per-minute limit.)
const LONG_WAIT_SECS: f64 = 12.0 * 3600.0;

/// A day: a quota whose stated wait is this long or longer is a day's quota (CONTRACT §2).
const DAY_SECS: f64 = 24.0 * 3600.0;

/// Billing boilerplate around a quota that refills within a retry budget: the text names a
/// window of a minute or a second (a quota id `...PerMinute-FreeTier`, "per minute"), or
/// states a wait of under an hour ("Please retry in 14.1s"). Gemini words every 429 "You
/// exceeded your current quota, please check your plan and billing details".
///
/// (batch 17) Or it asks to try again later ("翻译次数已达上限，请稍后再试", a count limit that
/// the app words as a wait): an allowance gone until a new period says tomorrow or names its
/// day, which `long_window` still turns to payment.
fn short_quota(f: &Failure, hay: &Hay) -> bool {
    text::short_window(f.body.as_deref().unwrap_or(""), hay.get())
        || text::short_window(&f.message, "")
        || stated_wait(f, hay).is_some_and(|(secs, _)| secs < 3600.0)
        || tables::TRY_LATER
            .iter()
            .any(|w| text::contains_phrase(hay.get(), w))
}

fn decide(
    f: &Failure,
    provider: Option<&ProviderError>,
    classes: &ClassFacts,
    hay: &Hay,
) -> (Category, Evidence) {
    // 1. Cancellation wins over everything: it is re-raised untouched.
    if let Some((Category::Cancelled, _)) = classes.category {
        return (Category::Cancelled, Evidence::Cancellation);
    }

    // (batch 24) A realtime session or socket at the lifetime its server allows, in an error
    // event with no status (`tables::sessions`): a new connection carries on, whatever type
    // the event gives.
    if f.status.is_none()
        && tables::sessions::LIFETIME_ENDED
            .iter()
            .any(|w| text::contains_phrase(hay.get(), w))
    {
        return (Category::Connection, Evidence::Message);
    }

    // 2. (x-should-retry only flips `transient`; see classify_at.)
    // 3. The status, refined by the provider's code and the message.
    match f.status {
        Some(s) if (200..300).contains(&s) => {
            // An error envelope inside a 200 (OpenRouter's moderation refusal, a stream's
            // error): its own numeric code is the status.
            if let Some(n) = provider
                .filter(|p| p.has_error)
                .and_then(|p| p.numeric_code)
                .filter(|n| (400..=599).contains(n))
            {
                // What would be retried is the stream failing mid-way (CONTRACT §2).
                // (a request error inside a stream is its protocol failing: invalid_response)
                let c = match refine_status(n, provider, hay) {
                    c if c.is_transient() => Category::StreamInterrupted,
                    Category::BadRequest => Category::InvalidResponse,
                    c => c,
                };
                return (c, Evidence::Body);
            }
            // An API that answers every error under 200 (Tencent Cloud API 3.0): its code
            // decides, as a statusless body's would.
            if let Some(c) = provider
                .filter(|p| p.answer_in_ok)
                .and_then(|p| statusless_code(p, hay))
            {
                return (c, Evidence::Body);
            }
            if let Some(c) = provider
                .and_then(code_category)
                .filter(|c| *c == Category::ContentFiltered)
            {
                return (c, Evidence::Body);
            }
            if let Some(c) = sse_category(provider, hay) {
                return (c, Evidence::Body);
            }
        }
        // A redirect nobody followed: the configured URL is wrong (http for https, a moved
        // endpoint), and the same request gets the same answer.
        Some(300..=399) => return (Category::Configuration, Evidence::Status),
        Some(s) if (400..=599).contains(&s) => {
            let c = match refine_status(s, provider, hay) {
                // (batch 19) A 5xx whose text says the server's own engine died (Ollama's
                // "llama runner process has terminated" under LiteLLM's APIConnectionError) was
                // answered by the server: the wrapper's connection class does not sharpen it.
                Category::ServerError if engine_died(hay) => Category::ServerError,
                c => refine_by_class(s, c, classes),
            };
            // A generic client error that quotes the transient failure it wraps is that failure.
            if matches!(c, Category::BadRequest | Category::ClientError) {
                if let Some(inner) = text::quoted_aiohttp_status(&f.message).filter(|n| *n != s) {
                    let ic = refine_status(inner, provider, hay);
                    if ic.is_transient() {
                        return (ic, Evidence::Message);
                    }
                }
            }
            return (c, Evidence::Status);
        }
        _ => {}
    }
    // An SSE error event: inside a stream, or quoted by an exception that carries no status.
    // (batch 22) Not when a decoder's class wraps the event (the AI SDK's
    // `AI_TypeValidationError` "Type validation failed: Value: {\"type\":\"error\",...}"): the
    // quoted value is the chunk that failed the schema, a protocol fault read by the class.
    let quoted_event = f.status.is_none()
        && provider.is_some_and(|p| p.event)
        && text_status(f, hay).is_none()
        && classes.category.map(|(c, _)| c) != Some(Category::InvalidResponse);
    let in_stream = matches!(
        f.transport,
        Some(Transport::StreamTransient | Transport::StreamParse)
    );
    if quoted_event || in_stream {
        // Anthropic's envelope has the same shape in a response body as in a stream's event:
        // quoted without a stream, an error about the request is the request's own fault
        // (`max_tokens: N > M`), read below like a body.
        // Likewise a known transient type quoted alone ("rate_limit_error" in a relay's
        // body) is the body's own failure, read below; an unknown type stays a stream's. So is
        // one a wrapper quotes in its message with no word of a stream ("litellm.
        // InternalServerError: AnthropicError - {...overloaded_error...}", "[API Error:
        // {...api_error...}]": the response's body, an overload or a server error).
        // (batch 17) An event of no known type quoted with no word of a stream, whose own words
        // name a transient nature (GraphRAG's "{'type': 'error', 'data': 'Error Invoking LLM',
        // 'cause': 'Connection error.'}"), is read by those words below, not as a stream cut.
        let body_like = |c: &Category| {
            *c == Category::InvalidResponse
                || (c.is_transient()
                    && (f.body.is_some() || !in_stream)
                    && provider.and_then(code_category).is_some())
                || (c.is_transient()
                    && !in_stream
                    && provider.and_then(code_category).is_none()
                    && text::transient().first(hay.get()).is_some())
        };
        if let Some(c) =
            sse_category(provider, hay).filter(|c| in_stream || says_stream(hay) || !body_like(c))
        {
            return (c, Evidence::Body);
        }
    }
    // A body (or quoted envelope) without a status: its numeric code is a status, else a
    // specific code decides.
    if f.status.is_none() {
        if let Some(p) = provider {
            if let Some(n) = p.numeric_code.filter(|n| (400..=599).contains(n)) {
                return (refine_status(n, provider, hay), Evidence::Body);
            }
            if let Some(c) = specific_code_category(p) {
                // (batch 32b) A wrapper's catch-all server code (tRPC's INTERNAL_SERVER_ERROR,
                // which it gives any error a procedure throws) around an error type named in
                // the text that states a permanent nature (LobeChat's `InvalidProviderAPIKey`):
                // the named error is the failure, not the wrapper's code.
                let c = refine_code(c, hay);
                if c == Category::ServerError {
                    if let Some(named) = permanent_name(f) {
                        return (named, Evidence::Message);
                    }
                }
                return (c, Evidence::Body);
            }
        }
    }

    // 4. The exception class chain, wrappers looked through (the binding concatenates chains).
    if let Some((c, network_or_config)) = classes.category {
        if network_or_config || c == Category::Connection {
            // (batch 24) A connection class around an answer whose quoted envelope states a
            // client error (LiteLLM's APIConnectionError "MinimaxException - {...\"http_code\":
            // \"400\"}"): the answer came, and its status decides. 408 stays the wrapper's.
            if let Some(n) = provider
                .filter(|p| p.has_error)
                .and_then(|p| p.numeric_code)
                .filter(|n| (400..500).contains(n) && *n != 408)
            {
                return (refine_status(n, provider, hay), Evidence::Body);
            }
            return (network_or_configuration(hay.get()), Evidence::ErrorClass);
        }
        if c.is_transient() {
            // A transient class is overruled only by a nature the text states outright (a
            // RateLimitError whose text says the credits are gone).
            // Softer billing wording counts where no provider code said otherwise (the legacy
            // openai.error.RateLimitError of an exhausted quota carries only the text).
            let billing = provider.and_then(specific_code_category).is_none()
                && text::permanent().first(hay.get()).map(|p| p.category)
                    == Some(Category::PaymentRequired);
            return match text::stated().first(hay.get()) {
                Some(p) => (p.category, Evidence::Message),
                None if billing && !short_quota(f, hay) => {
                    (Category::PaymentRequired, Evidence::Message)
                }
                _ if c == Category::ServerError && says_overloaded(hay) => {
                    (Category::Overloaded, Evidence::ErrorClass)
                }
                // (batch 32a) A wrapper's server-error class with no status around the words of
                // a link that failed (LiteLLM's `InternalServerError: AnthropicException -
                // [SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol`):
                // no server answered; the connection is the failure.
                _ if c == Category::ServerError
                    && f.status.is_none()
                    && names_a_failed_link(hay)
                    && !engine_died(hay) =>
                {
                    (Category::Connection, Evidence::Message)
                }
                // OpenAI once answered server faults and overloads under RateLimitError; a text
                // that names one and no rate limit is believed.
                _ if c == Category::RateLimited => match text::transient().first(hay.get()) {
                    Some(p)
                        if matches!(p.category, Category::ServerError | Category::Overloaded) =>
                    {
                        (p.category, Evidence::Message)
                    }
                    _ => (c, Evidence::ErrorClass),
                },
                _ => (c, Evidence::ErrorClass),
            };
        }
        // (batch 21) An SDK's authentication class raised before any request, whose words say
        // no key was ever set (`setup_registry::KEY_NEVER_SET`): set-up, not a refused key.
        // "Invalid or missing API key" is a server's refusal of whichever it got.
        if c == Category::Unauthorized
            && f.status.is_none()
            && tables::setup_registry::KEY_NEVER_SET
                .iter()
                .any(|w| text::contains_phrase(hay.get(), w))
            && !["invalid", "incorrect"]
                .iter()
                .any(|w| text::contains_phrase(hay.get(), w))
        {
            return (Category::Configuration, Evidence::Message);
        }
        // (batch 27) A retry wrapper's class (`output_form::RETRY_WRAPPERS`) around an inner
        // exception its text names ("litellm.BadRequestError: ..."): the inner error decides.
        if let Some(inner) = retried_inner_class(f) {
            return (inner, Evidence::ErrorClass);
        }
        // (batch 26) A decoder's class around a chunk whose words say the stream broke
        // (`stated_faults::STREAM_BROKE`): the cut the chunk reports, not its shape.
        if c == Category::InvalidResponse
            && tables::stated_faults::STREAM_BROKE
                .iter()
                .any(|w| text::contains_phrase(hay.get(), w))
        {
            return (Category::StreamInterrupted, Evidence::Message);
        }
        // (batch 31b) A schema class (pydantic's `ValidationError`) whose text names a reply's
        // model ("4 validation errors for ChatCompletion\nid ... input_value=None"): the reply
        // failed the SDK's schema, as the same words without the class are read.
        if c == Category::Validation
            && (text::reply_model_validation(hay.get()) || text::scalar_given_none(hay.get()))
        {
            return (Category::InvalidResponse, Evidence::ErrorClass);
        }
        // (batch 20) A schema class (pydantic's `ValidationError`) whose text states a set-up
        // limit (Letta's memory block: "Exceeds 2000 character limit (requested 2563)"): the
        // value checked was the caller's stored set-up, not the model's output (CONTRACT §2).
        if c == Category::Validation
            && text::stated()
                .first(hay.get())
                .is_some_and(|p| p.category == Category::Configuration)
        {
            return (Category::Configuration, Evidence::Message);
        }
        // undici (Node's fetch) raises a bare TypeError for transport failures, with exactly
        // these messages (`tables::UNDICI_TYPE_ERRORS`).
        // (batch 35b) TypeError anywhere in the chain ("ProviderBizError" wrapping undici's).
        if c == Category::Programming && f.error_class.iter().any(|k| k == "TypeError") {
            // The first line is undici's; a cause printed under it ("[cause]:
            // HeadersTimeoutError", "SocketError: other side closed") says which failure.
            let whole = f.message.trim();
            let first = whole.lines().next().unwrap_or("").trim();
            // (batch 18) Node's inspect form puts the error in brackets before its fields:
            // "[TypeError: fetch failed] {\ncause: [Error: connect ECONNREFUSED ...]".
            let first = first.strip_prefix('[').map_or(first, |rest| {
                rest.split_once(']').map_or(rest, |(inside, _)| inside)
            });
            let first = first.strip_prefix("TypeError: ").unwrap_or(first);
            // (batch 19) An app's prefix before undici's words, or a stack frame after them
            // ("fetch failed: TypeError: fetch failed at node:internal/deps/undici/undici:14900"):
            // undici's message wherever "TypeError: " introduces it, cut at a frame or a clause.
            let quoted = || {
                whole.match_indices("TypeError: ").find_map(|(at, intro)| {
                    let rest = &whole[at + intro.len()..];
                    // (batch 29a) @google/genai wraps any fetch exception as "exception {e}
                    // sending request" (Gemini CLI's "exception TypeError: fetch failed sending
                    // request", google-gemini/gemini-cli#1549): its suffix ends undici's words.
                    // (batch 32b) Node's inspect form behind an app's own tag ("[OpenAI]
                    // [TypeError: fetch failed] {\n cause: [Error: read ECONNRESET]"): the
                    // bracket closes them too.
                    let end = [" at ", "\n", ": ", ". ", " sending request", "]"]
                        .iter()
                        .filter_map(|w| rest.find(w))
                        .min()
                        .unwrap_or(rest.len());
                    let said = rest[..end].trim();
                    tables::UNDICI_TYPE_ERRORS
                        .iter()
                        .find(|(m, _)| said.eq_ignore_ascii_case(m))
                })
            };
            // (batch 35b) Or the fetch words wherever they stand (`text::fetch_failure`):
            // the TypeError class never makes them a bug.
            // A first line that states a bug of its own ("Cannot read properties of undefined")
            // keeps it: the TypeError is that line's.
            let own_bug = text::permanent()
                .first(&first.to_lowercase())
                .is_some_and(|p| p.category == Category::Programming);
            let anywhere = text::fetch_failure(whole).filter(|_| !own_bug);
            if let Some(c) = tables::UNDICI_TYPE_ERRORS
                .iter()
                .find(|(m, _)| first.eq_ignore_ascii_case(m))
                .or_else(quoted)
                .map(|(_, c)| *c)
                .or(anywhere)
            {
                // (batch 35b) Any words beside the fetch words may state the cause.
                let bare = tables::UNDICI_TYPE_ERRORS.iter().any(|(m, _)| {
                    whole
                        .trim_end_matches('.')
                        .eq_ignore_ascii_case(m.trim_end_matches('.'))
                });
                let c = match whole.len() > first.len() || !bare {
                    true => text::network().first(hay.get()).map_or(c, |p| p.category),
                    false => c,
                };
                return (c, Evidence::Message);
            }
        }
        // A generic client error class ("RubyLLM::BadRequestError" without a status) is
        // sharpened by the message like a 400 would be, its server's overload words too.
        if matches!(c, Category::BadRequest | Category::ClientError) {
            if let Some(p) = text::overload_under_4xx().first(hay.get()) {
                return (p.category, Evidence::Message);
            }
            // (batch 26) A set-up the message states outright (LiteLLM raises "LLM Provider NOT
            // provided" as a BadRequestError before any request): the caller's configuration,
            // as the same words without the class read.
            if let Some(p) = text::stated()
                .first(hay.get())
                .filter(|p| p.category == Category::Configuration)
            {
                return (p.category, Evidence::Message);
            }
            // (batch 17) A transport failure the wrapper's generic class only names (Dify's
            // `InvokeBadRequestError` "[models] Bad Request Error, The read operation timed
            // out"): the inner timeout or connection failure is the failure; the class carries
            // no status of its own.
            if let Some(c) = transport_words(hay) {
                return (c, Evidence::Message);
            }
        }
        // (batch 22) A decoder's class (Python's `JSONDecodeError`) whose words say the text
        // was written by a model (`output_form::MODEL_WRITTEN`: a bad escape, a raw control
        // character): the model's output failed the caller's parser, validation (CONTRACT §2).
        // (batch 25) A decoder's class whose text quotes an HTML error page that states its
        // status (`decode::HTML_PAGE_MARKS`: "Expecting value ... <title>429</title>429 Too
        // Many Requests"): the reply was that page, the failure the status names.
        if c == Category::InvalidResponse
            && tables::decode::HTML_PAGE_MARKS
                .iter()
                .any(|w| hay.get().contains(w))
        {
            if let Some(n) = text_status(f, hay)
                .or_else(|| text::html_title_status(hay.get()))
                .filter(|n| *n >= 400)
            {
                return (refine_status(n, provider, hay), Evidence::Message);
            }
        }
        if c == Category::InvalidResponse
            && tables::output_form::MODEL_WRITTEN
                .iter()
                .any(|w| text::contains_phrase(hay.get(), w))
        {
            return (Category::Validation, Evidence::Message);
        }
        return (
            refine_by_phrase(c, text::permanent().first(hay.get()).map(|p| p.category)),
            Evidence::ErrorClass,
        );
    }
    if f.status.is_none() {
        if let Some(c) = provider.and_then(code_category) {
            // A generic type (`api_error`, `invalid_request_error`) says less than a status
            // the text states around it ("API Error: 404 {...\"type\":\"api_error\"...}").
            if provider.and_then(specific_code_category).is_none() {
                if let Some(n) = text_status(f, hay) {
                    return (refine_status(n, provider, hay), Evidence::Message);
                }
            }
            // A generic server_error whose words name an overload, as a 5xx's would be read.
            let c = generic_server_error(c, hay);
            return (
                refine_by_phrase(c, text::permanent().first(hay.get()).map(|p| p.category)),
                Evidence::Body,
            );
        }
    }

    // 5. The transport hint of a Rust client.
    match f.transport {
        Some(Transport::Timeout) => return (Category::Timeout, Evidence::Transport),
        Some(Transport::Connect) => return (Category::Connection, Evidence::Transport),
        Some(Transport::StreamTransient) => {
            return (Category::StreamInterrupted, Evidence::Transport)
        }
        Some(Transport::StreamParse | Transport::Json) => {
            return (Category::InvalidResponse, Evidence::Transport)
        }
        Some(Transport::Other) | None => {}
    }

    // 6. The message text, last.
    if let Some(c) = message_category(f, provider, hay) {
        return (c, Evidence::Message);
    }
    // (batch 24) An error raised on a success status that nothing above names: the answer
    // came and the client could not use it (openai-python 0.x's "HTTP code 200 from API (...)"
    // and "Invalid response object from API: ... (HTTP response code was 200)", raised when a
    // 200's body is not the JSON it expects).
    if f.status.is_some_and(|s| (200..300).contains(&s)) {
        return (Category::InvalidResponse, Evidence::Status);
    }
    (Category::Unknown, Evidence::Nothing)
}

/// The lower-cased message and body text, built only when a rule needs to read it.
struct Hay<'a> {
    f: &'a Failure,
    provider: Option<&'a ProviderError>,
    text: std::cell::OnceCell<String>,
}

impl<'a> Hay<'a> {
    fn new(f: &'a Failure, provider: Option<&'a ProviderError>) -> Self {
        Hay {
            f,
            provider,
            text: std::cell::OnceCell::new(),
        }
    }
    fn get(&self) -> &str {
        self.text.get_or_init(|| haystack(self.f, self.provider))
    }
}

/// What the phrases read: the message, the provider's message (or the raw body) and its codes,
/// lower-cased, with links blanked out: a link is boilerplate, not evidence (Groq's 429 ends
/// with an upgrade link to `console.groq.com/settings/billing`).
fn haystack(f: &Failure, provider: Option<&ProviderError>) -> String {
    // Terminals wrap and pad long lines inside phrases ("Output blocked by content\n
    // filtering policy"): runs of white space read as one space.
    let mut hay = collapse_space(&text::lower_bounded(&f.message, MAX_SCAN));
    let extra = match provider.and_then(|p| p.message.as_deref()) {
        Some(m) => Some(m),
        None => f.body.as_deref(),
    };
    if let Some(extra) = extra {
        hay.push('\n');
        hay.push_str(&collapse_space(&text::lower_bounded(extra, MAX_SCAN)));
    }
    if let Some(p) = provider {
        for code in &p.codes {
            hay.push('\n');
            hay.push_str(code);
        }
    }
    // What the wrapped exceptions said, after everything the outer one says (CONTRACT §1).
    for inner in &f.inner_messages {
        hay.push('\n');
        hay.push_str(&text::lower_bounded(inner, MAX_SCAN));
    }
    text::blank_links(&mut hay);
    hay
}

/// Every run of white space as one space (a lone space stays as it is).
fn collapse_space(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// A status the message states ("Error code: 429", "HTTP Error 503", "429 RESOURCE_EXHAUSTED").
fn text_status(f: &Failure, hay: &Hay) -> Option<u16> {
    text::leading_status(&f.message)
        .or_else(|| text::status_before_body(&f.message))
        // aiohttp's ClientResponseError prints "404, message='Not Found', url='...'".
        .or_else(|| text::quoted_aiohttp_status(&f.message))
        .or_else(|| text::status_in_text(hay.get(), tables::STATUS_INTRODUCERS))
        // reqwest's "HTTP status client error (451 Unavailable For Legal Reasons) for url".
        .or_else(|| text::reqwest_status(&f.message))
        .or_else(|| text::status_before_status_code(hay.get()))
        // Last, a bare "Error 500" ("DeepInfra Server: Error 500").
        .or_else(|| text::error_space_status(hay.get()))
}

fn status_category(status: u16) -> Category {
    if let Some((_, c)) = tables::STATUS.iter().find(|(s, _)| *s == status) {
        return *c;
    }
    match status {
        500..=599 => Category::ServerError,
        _ => Category::ClientError,
    }
}

/// The category of the first non-generic code, if any.
fn specific_code_category(p: &ProviderError) -> Option<Category> {
    p.codes
        .iter()
        .find_map(|code| tables::code_row(code).filter(|r| !r.generic))
        .map(|r| r.category)
}

/// (batch 35a) The provider's first specific code is a bare number ("1001"), which many
/// providers' tables use each in their own sense, and the envelope also names a type a table
/// knows (`invalid_request_error`): the named type is this provider's own word.
fn numeric_specific_code(p: &ProviderError) -> bool {
    let numeric = |code: &String| code.bytes().all(|b| b.is_ascii_digit());
    p.codes
        .iter()
        .find(|code| tables::code_row(code).is_some_and(|r| !r.generic))
        .is_some_and(numeric)
        && p.codes
            .iter()
            .any(|code| !numeric(code) && tables::code_row(code).is_some())
}

/// The most specific category named by the provider's codes.
fn code_category(p: &ProviderError) -> Option<Category> {
    let mut generic = None;
    for code in &p.codes {
        if let Some(row) = tables::code_row(code) {
            if !row.generic {
                return Some(row.category);
            }
            generic.get_or_insert(row.category);
        }
    }
    generic
}

/// What a provider's codes say without a status: a specific code refined by the text
/// ([`refine_code`]), else a generic one sharpened by a permanent phrase.
fn statusless_code(p: &ProviderError, hay: &Hay) -> Option<Category> {
    specific_code_category(p)
        .map(|c| refine_code(c, hay))
        .or_else(|| {
            code_category(p).map(|c| {
                refine_by_phrase(c, text::permanent().first(hay.get()).map(|p| p.category))
            })
        })
}

/// A provider code without a status: a transient code is overruled only by a stated nature,
/// a permanent one is sharpened by the text as its status would be.
fn refine_code(c: Category, hay: &Hay) -> Category {
    if c.is_transient() {
        match text::stated().first(hay.get()) {
            Some(p) => p.category,
            // A generic server_error whose words name an overload (OpenAI's "That model is
            // currently overloaded with other requests" under type server_error, no status).
            None => generic_server_error(c, hay),
        }
    } else if let Some(p) = text::stated().first(hay.get()) {
        // A stated nature wins as it does over a permanent status (Kimi's permission_error
        // "usage limit for this billing cycle").
        p.category
    } else if c == Category::Forbidden && says_rate_limited(hay) {
        Category::RateLimited
    } else {
        refine_by_phrase(c, text::permanent().first(hay.get()).map(|p| p.category))
    }
}

/// A generic server_error code read by its words: an overload (OpenAI's "That model is
/// currently overloaded with other requests" under type server_error, no status), or (batch 26)
/// a timeout (Dify's plugin daemon: "{'message': 'context deadline exceeded', 'type':
/// 'server_error'}"): the more specific nature, the same retry.
fn generic_server_error(c: Category, hay: &Hay) -> Category {
    if c != Category::ServerError {
        return c;
    }
    if says_overloaded(hay) {
        return Category::Overloaded;
    }
    match text::transient().first(hay.get()) {
        Some(p) if p.category == Category::Timeout => Category::Timeout,
        _ => c,
    }
}

/// The text's first transient phrase names a rate limit.
fn says_rate_limited(hay: &Hay) -> bool {
    text::transient()
        .first(hay.get())
        .is_some_and(|p| p.category == Category::RateLimited)
}

fn refine_status(status: u16, provider: Option<&ProviderError>, hay: &Hay) -> Category {
    // (batch 31b) A retry loop's give-up that names its last attempt's client error ("All 2
    // attempts failed. Last error: HTTP 400 Bad Request: ..."), whatever status and type the
    // relay then answers with (a 429 `overloaded_error`): the request is refused as sent and
    // fails the same way again. The relay's own code speaks for its loop, not for the 400.
    if let Some(inner) = text::last_error_status(hay.get())
        .filter(|n| (400..500).contains(n) && !matches!(n, 408 | 429 | 499) && *n != status)
    {
        return refine_status(inner, None, hay);
    }
    // A gateway's generic 4xx that says its upstream answered a transient status ("Code: 400
    // Error: Upstream returned 429") is that status: the gateway only relayed it.
    if matches!(
        status_category(status),
        Category::BadRequest | Category::ClientError
    ) {
        if let Some(inner) = text::upstream_status(hay.get())
            .or_else(|| text::relayed_status(hay.get()))
            .filter(|n| *n == 429 || (500..600).contains(n))
        {
            return refine_status(inner, provider, hay);
        }
        // A server that answers its own overload with a 400 (FastChat's "NETWORK ERROR DUE TO
        // HIGH TRAFFIC. PLEASE REGENERATE OR REFRESH THIS PAGE."): those words only.
        if let Some(p) = text::overload_under_4xx().first(hay.get()) {
            return p.category;
        }
        // (batch 22) A retry loop's give-up with no cause (`wrappers::GIVE_UP_WITHOUT_CAUSE`)
        // under an app's generic 4xx: the status is the app's, the cause is lost.
        if tables::wrappers::GIVE_UP_WITHOUT_CAUSE
            .iter()
            .any(|w| text::contains_phrase(hay.get(), w))
        {
            return Category::Unknown;
        }
    }
    // A wrapper's 5xx around a client error it states (an SDK's 500 "unable to parse response"
    // around a 400, a gateway's 500 quoting the upstream's "status code 400"): the inner status
    // is the failure's nature. 408 and 429 stay transient, and are named as what they are (a
    // Lambda's 500 around axios' "Request failed with status code 429" is the rate limit);
    // 499 is a client's own cancel.
    if status >= 500 {
        // (batch 20) requests' "400 Client Error: Bad Request for url" quoted by the wrapper
        // ("Internal server error (unpack): 400 Client Error: ...") names the inner status too.
        let inner = text::status_in_text_all(hay.get(), tables::INNER_STATUS_INTRODUCERS)
            .into_iter()
            .chain(text::requests_client_errors(hay.get()))
            .find(|n| (400..500).contains(n) && *n != 499);
        if let Some(inner) = inner {
            return refine_status(inner, provider, hay);
        }
    }
    let base = status_category(status);
    let specific = provider.and_then(specific_code_category);
    // The phrase scans are the costly part of classifying: each runs only where its answer
    // can change the outcome.
    let phrase = || text::permanent().first(hay.get()).map(|p| p.category);
    if !base.is_transient() && !specific.is_some_and(|c| c.is_transient()) {
        // A permanent status: a stated nature, a specific provider code, then a message
        // phrase, may sharpen it (xAI answers exhausted credits with a 403).
        // (batch 35a) A stated "client error" (a model container's "Received client error
        // (400) from primary", which beats Bedrock's 424) is the broadest permanent nature: it
        // never replaces a status that already names the client error precisely (SageMaker's
        // ModelError carrying the container's own 400, aws/sagemaker-huggingface-inference-
        // toolkit#122).
        if let Some(p) = text::stated()
            .first(hay.get())
            .filter(|p| p.category != Category::ClientError || base == Category::ClientError)
        {
            return p.category;
        }
        // Some APIs answer a rate limit with 403 (Alibaba's coding plan: 403 AccessDenied
        // "Rate limit exceeded. Please wait and try again"; GitHub's "API rate limit
        // exceeded"): the words name the nature, the status only refuses.
        // (batch 17) A free relay's 402 whose only words are a rate limit ("Response 402: Rate
        // limit reached", gpt4free's Liaobots, a token window that refreshes) is read the same
        // way; any billing word (`tables::BILLING_HINTS`) or a daily window keeps it payment.
        let rate_only_402 = || {
            phrase().is_none()
                && !tables::BILLING_HINTS
                    .iter()
                    .any(|w| text::contains_phrase(hay.get(), w))
        };
        if (status == 403 || (status == 402 && rate_only_402())) && says_rate_limited(hay) {
            return Category::RateLimited;
        }
        // (batch 34a) A code documented only as a 422 (flopex's `validation_error`) names a
        // status, not a nature: under another stated 4xx (llm-gateway's "Provider returned
        // 400" with `validation_error`), the status says which.
        let specific = specific.filter(|c| *c != Category::Unprocessable || status == 422);
        // (batch 35a) A schema error that names a request model ("1 validation error for
        // ChatCompletionRequest ... Extra inputs are not permitted", vLLM behind RunPod,
        // runpod-workers/worker-vllm#85) is the server checking what we sent, never the
        // model's output failing the app's schema: the status decides.
        let phrase = || {
            phrase()
                .filter(|c| *c != Category::Validation || !text::request_schema_error(hay.get()))
        };
        // (batch 35a) A bare number is every provider's code at once (Zhipu's 1001 is a
        // missing Authorization header under 401; Tencent Hunyuan's 1001 is a message list
        // whose roles do not alternate under 400 `invalid_request_error`,
        // FoundationAgents/OpenManus#894): beside a named type of the same envelope, a row
        // that reads the number as a refused key or access holds only under the status that
        // says so. (FastChat's 40101, alone under its 400, keeps its row.)
        let specific = specific.filter(|c| {
            !matches!(c, Category::Unauthorized | Category::Forbidden)
                || matches!(status, 401 | 403)
                || !provider.is_some_and(numeric_specific_code)
        });
        return refine_by_phrase(specific.unwrap_or(base), phrase());
    }
    // A body that states the nature of the error wins over a transient status or code: a
    // context overflow in a self-hosted server's 500, credits gone under a 429's
    // `rate_limit_error`, OpenAI's 429 `insufficient_quota`.
    if let Some(c) = specific.filter(|c| tables::STATED.contains(c)) {
        return c;
    }
    if let Some(p) = text::stated().first(hay.get()) {
        // (batch 35a) The stated client error beats a transient code the container put
        // inside it (its "InternalServerException" under its own 400): the status, a client
        // error already, says which.
        if p.category == Category::ClientError && !base.is_transient() {
            return base;
        }
        return p.category;
    }
    // (batch 20) A server's 500 around a Python KeyError on a field of the request
    // (`text::request_key_error`): the request's fault, stated by the exception's repr.
    if status >= 500 && text::request_key_error(hay.get()) {
        return Category::BadRequest;
    }
    // (batch 26) Likewise a JSONDecodeError raised where the server decodes the request it
    // received (`text::request_decode_frame`): LiteLLM proxy's 500 "Expecting value" traceback.
    if status >= 500 && text::request_decode_frame(hay.get()) {
        return Category::BadRequest;
    }
    // Softer billing wording decides only when the provider named no code: Gemini's
    // per-minute RESOURCE_EXHAUSTED says "check your plan and billing details" yet clears.
    if specific.is_none() && phrase() == Some(Category::PaymentRequired) && !short_quota(hay.f, hay)
    {
        return Category::PaymentRequired;
    }
    // A transient code on a permanent status is the code's (AWS: 400 + ThrottlingException,
    // 424 + ModelStreamErrorException).
    if !base.is_transient() {
        return specific.unwrap_or(base);
    }
    // A generic 5xx is sharpened by the code (500 + overloaded_error, 504 + timeout_error);
    // a 429 only into overloaded (TGI's 429 "Model is overloaded", Bedrock's
    // ModelNotReadyException), never out of the rate limits.
    let code = provider.and_then(code_category);
    let sharper = match code {
        Some(c) if c.is_transient() && base == Category::ServerError => c,
        Some(Category::Overloaded) if base == Category::RateLimited => Category::Overloaded,
        _ => base,
    };
    // Then by the wording, where the code said nothing sharper.
    match sharper {
        Category::ServerError if says_overloaded(hay) => Category::Overloaded,
        // (batch 32a) A deadline named under a 5xx (Gemini's "504 DEADLINE EXCEEDED", "503
        // Context deadline exceeded"): google-api-core's `DeadlineExceeded` is a 504, so the
        // deadline is the nature and the status its carrier. A bare "Gateway Timeout" stays
        // the server's.
        Category::ServerError if says_deadline(hay) => Category::Timeout,
        // (batch 18) A 503 that names a rate limit is a throttle answered as unavailable (a
        // router's "Request dropped after exceeding the local rate-limit queue budget"; S3's
        // 503 SlowDown is the same shape): its rate, and its wait, are what the retry needs.
        Category::ServerError if status == 503 && text::rate_limit().first(hay.get()).is_some() => {
            Category::RateLimited
        }
        // (batch 19) A server's 500 whose words are a failed connection to what it stands in
        // front of (Open WebUI's "500: Open WebUI: Server Connection Error" when the model
        // server is not reached, a proxy's 500 "connection refused"): the connection is the
        // failure, the 500 only its relay. (An "unexpected EOF" under a 500 is the server's own
        // worker ending its output, Ollama's runner: still the server's, as is any engine the
        // text says died, whatever connection class the wrapper raised.)
        // (batch 27) Not where the provider's own code already names a server fault (Zhipu's
        // 500 code 1234 "网络错误...请联系客服": its network, not the caller's link).
        // (batch 29a) A Node router's 502 in its own fetch's words is the same relay: 9router's
        // "[502]: fetch failed (reset after 29s)" (decolua/9router#326). An upstream's words
        // relayed under a 502 (OpenRouter's `metadata.raw` "upstream connect error") keep it.
        Category::ServerError
            if (status == 500 || (status == 502 && relay_fetch_failed(hay)))
                && specific != Some(Category::ServerError)
                && says_connection_failed(hay)
                && !engine_died(hay)
                && !fetch_answered(hay, status) =>
        {
            Category::Connection
        }
        // (batch 31b) An app's own 500 around a client's timeout it quotes by class (Flowise's
        // "Status: 500 Error: ... - TimeoutError: Request timed out."): the call timed out,
        // the 500 only relays it.
        Category::ServerError
            if status == 500
                && specific != Some(Category::ServerError)
                && text::quotes_class(&hay.f.message, |name| {
                    class_rule(name) == Some(ClassRule::Is(Category::Timeout))
                }) =>
        {
            Category::Timeout
        }
        // (batch 33b) An app's or relay's own 500 around a client's timeout it states in words
        // (FastGPT's "500 do request failed: Post ...: dial tcp ...: i/o timeout"): the call
        // timed out on its way, the 500 only relays it, as the quoted class above.
        Category::ServerError
            if status == 500
                && specific != Some(Category::ServerError)
                && !engine_died(hay)
                // A client's own timer (`app_words::CLIENT_TIMERS`), not a server's own wait
                // ("timed out waiting for llama runner to start", Ollama's load timeout).
                && says_any(hay, tables::app_words::CLIENT_TIMERS) =>
        {
            Category::Timeout
        }
        // (batch 23) google-api-core maps gRPC's UNAVAILABLE to a 503 (`ServiceUnavailable`),
        // keeping grpc core's words for a channel that never connected ("503 failed to connect
        // to all addresses; last error: UNKNOWN: ipv4:...:443: TCP handshake shutdown"): the
        // connection is the failure, as under the bare status name (`GRPC_CONNECTION`).
        Category::ServerError
            if status == 503
                && tables::stated_faults::GRPC_CONNECTION
                    .iter()
                    .any(|p| text::contains_phrase(hay.get(), p.text)) =>
        {
            Category::Connection
        }
        // Only these words: "Service tier capacity exceeded" on a 429 is Mistral's limit, while
        // Azure's 429 "experiencing high demand ... during peak load" is shared capacity.
        // (batch 21) A relay's words for its group's load replace the upstream's, whatever
        // rate code stays beside them (`throttle_4xx::RELAY_SATURATION`).
        Category::RateLimited
            if tables::throttle_4xx::RELAY_SATURATION
                .iter()
                .chain(tables::throttle_4xx::QUEUE_FULL)
                .any(|w| text::contains_phrase(hay.get(), w)) =>
        {
            Category::Overloaded
        }
        Category::RateLimited
            if specific.is_none()
                && ["overloaded", "high demand"]
                    .iter()
                    .any(|w| text::contains_phrase(hay.get(), w)) =>
        {
            Category::Overloaded
        }
        c => c,
    }
}

/// A timeout or a connection failure the text names (the network phrases, then the transient
/// ones), read under a wrapper's generic bad request (batch 17).
fn transport_words(hay: &Hay) -> Option<Category> {
    // (batch 34a) A set-up the client states under its transport words (a proxy's tunnel
    // refused with "400 Bad Request"): the 400 is the proxy's, and the set-up is the failure.
    if let Some(p) = text::network().first(hay.get()).filter(|p| p.stated) {
        return Some(p.category);
    }
    [text::network(), text::transient()].iter().find_map(|set| {
        set.first(hay.get())
            .map(|p| p.category)
            .filter(|c| matches!(c, Category::Timeout | Category::Connection))
    })
}

/// (batch 19) The text says the server's engine died (`text::engine_down`), and names no fault
/// of the caller's that killed it ("Engine is dead: model file is corrupt" dies again).
fn engine_died(hay: &Hay) -> bool {
    text::engine_down(hay.get()) && !nearby::names_caller_fault(hay.get())
}

/// (batch 29a) A relay's own fetch failed before any answer (`clients::RELAY_FETCH_FAILED`).
fn relay_fetch_failed(hay: &Hay) -> bool {
    tables::clients::RELAY_FETCH_FAILED
        .iter()
        .any(|w| text::contains_phrase(hay.get(), w))
}

/// (batch 28) The words of a fetch carry the status it got (`clients::FETCH_ANSWERED`).
fn fetch_answered(hay: &Hay, status: u16) -> bool {
    let status = status.to_string();
    tables::clients::FETCH_ANSWERED
        .iter()
        .any(|form| hay.get().contains(&form.replace("{}", &status)))
}

/// (batch 28) The text up to a schema validator's own cause (`output_form::SCHEMA_REPORT_HEADS`):
/// the issue list after it carries the validator's codes, not a provider's.
fn before_schema_cause(message: &str) -> &str {
    let lower = message.to_ascii_lowercase();
    let is_report = tables::output_form::SCHEMA_REPORT_HEADS
        .iter()
        .any(|h| lower.contains(h));
    match lower.find(tables::output_form::SCHEMA_REPORT_CAUSE) {
        // ASCII lower-casing keeps byte offsets, so the cut is on a char boundary.
        Some(i) if is_report => &message[..i],
        _ => message,
    }
}

/// (batch 19) Whether a not-found was said by the client's own registry: no provider envelope
/// with a status or code of its own, and words only a local lookup prints.
fn local_registry(provider: Option<&ProviderError>, hay: &Hay) -> bool {
    provider.map_or(true, |p| p.numeric_code.is_none() && p.codes.is_empty())
        && (tables::agents::LOCAL_REGISTRY_WORDS
            .iter()
            .any(|w| text::contains_phrase(hay.get(), w))
            // (batch 33b) Or raised at a plugin's own Lua frame.
            || text::not_found_at_lua_frame(hay.get()))
        && !tables::agents::PROVIDER_SUGGESTIONS
            .iter()
            .any(|w| text::contains_phrase(hay.get(), w))
}

/// (batch 19) The words name a connection that failed (a network or transient phrase of the
/// connection family), not a read that ended early (`eof`).
fn says_connection_failed(hay: &Hay) -> bool {
    [text::network(), text::transient()].iter().any(|set| {
        set.first(hay.get()).is_some_and(|p| {
            p.category == Category::Connection
                && (!p.text.contains("eof") || tables::sdk_runtime_words::TLS_CUT.contains(&p.text))
        })
    }) || connect_timed_out(hay)
}

/// (batch 24) A connection that was never made because the peer did not answer in time, in a
/// socket error's number (`[WinError 10060]`, WSAETIMEDOUT, whatever language its words are
/// in) or in urllib3's words: relayed by an app's own 500 ("Request failed with status code
/// 500 ... Failed to establish a new connection: [WinError 10060]"), the connection is what
/// failed.
fn connect_timed_out(hay: &Hay) -> bool {
    tables::clients::CONNECT_TIMEOUT_WORDS
        .iter()
        .any(|w| text::contains_phrase(hay.get(), w))
}

/// The text places the failure in a stream ("stream error", "event: error", SSE).
fn says_stream(hay: &Hay) -> bool {
    ["stream", "streaming", "event", "sse"]
        .iter()
        .any(|w| text::contains_phrase(hay.get(), w))
}

/// The text names an overload ("The model is overloaded", "server busy") anywhere: a generic
/// server-error word beside it (.NET's "ServiceUnavailable", LiteLLM's "InternalServerError"
/// around "AnthropicException - Overloaded") is only the wrapper's name for it (batch 17).
fn says_overloaded(hay: &Hay) -> bool {
    text::overload().first(hay.get()).is_some()
        && !tables::wrappers::HEDGED_OVERLOAD
            .iter()
            .any(|w| hay.get().contains(w))
}

fn refine_by_phrase(base: Category, phrase: Option<Category>) -> Category {
    match phrase {
        // (batch 20) A 4xx with no name of its own (Jan's cortex engine answers "Model has not
        // been loaded, please load model" with 409 Conflict) is sharpened by set-up words; a 400
        // keeps its bad request (LM Studio's 400 "Failed to load model" is the request's).
        Some(Category::Configuration) if base == Category::ClientError => Category::Configuration,
        Some(p) if p != base && tables::PERMANENT_REFINEMENTS.contains(&p) => {
            // A status that already names the failure precisely keeps it (a 401 stays a 401),
            // except that tool pairing and context overflow arrive as 400s / 413s / 422s.
            match base {
                Category::BadRequest | Category::ClientError | Category::Unprocessable => p,
                Category::Forbidden if p == Category::ContentFiltered => p,
                _ => base,
            }
        }
        _ => base,
    }
}

/// SSE `error` event inside a stream: its `error.type` decides (Forgeflare R1), unless its text
/// states a permanent nature outright (a quota gone, a content filter mid-stream).
fn sse_category(provider: Option<&ProviderError>, hay: &Hay) -> Option<Category> {
    let p = provider.filter(|p| p.has_error)?;
    // A stated nature wins inside a stream too, except a bad request: an error event about the
    // request is the stream's protocol failing (`invalid_response`), never `bad_request`
    // (Forgeflare R1; found by the `sse` fuzz target).
    if let Some(s) = text::stated().first(hay.get()) {
        match s.category {
            // (batch 34a) Not an event of R1's shape (no `"type": "error"` around it) but an
            // API's error body under 200 whose words state a request the server cannot take
            // (LM Studio's "Error in iterating prediction stream: ValueError: Vision add-on is
            // not loaded, but images were provided"): the same failure every time, as an
            // `invalid_request_error` event is, never a cut to retry.
            Category::BadRequest | Category::ClientError if !p.event => {
                return Some(Category::InvalidResponse);
            }
            Category::BadRequest | Category::ClientError => {}
            c => return Some(c),
        }
    }
    if p.codes.iter().any(|c| c == "invalid_request_error") {
        // (batch 25) A relay that types the upstream's capacity refusal as a request error
        // (sub2api's `response.failed` "Selected model is at capacity. Please try a different
        // model." under `invalid_request_error`): the words' overload is the failure, as the
        // same event typed `server_is_overloaded` is.
        if let Some(o) = text::overload().first(hay.get()) {
            return Some(o.category);
        }
        return Some(Category::InvalidResponse);
    }
    match code_category(p) {
        Some(c) if !c.is_transient() && c != Category::BadRequest => Some(c),
        // overloaded_error, api_error, rate_limit_error, unknown or absent types.
        _ => Some(Category::StreamInterrupted),
    }
}

/// A status that names its failure only broadly is sharpened by a class that names it exactly:
/// a 400 raised as litellm's `ContextWindowExceededError`, a 500 that litellm attaches to an
/// `APIConnectionError` although no response ever came. A 5xx is only sharpened into another
/// transient category: a permanent one there must be stated by the body itself (found by the
/// `classify` fuzz target: a 529 with a client-error code and a NotFoundError class).
fn refine_by_class(status: u16, c: Category, classes: &ClassFacts) -> Category {
    let Some((class, false)) = classes.category else {
        return c;
    };
    match c {
        Category::BadRequest | Category::ClientError | Category::Unprocessable
            if status < 500 && tables::PERMANENT_REFINEMENTS.contains(&class) =>
        {
            class
        }
        Category::ServerError if matches!(class, Category::Connection | Category::Timeout) => class,
        Category::ServerError | Category::Overloaded if class == Category::StreamInterrupted => {
            class
        }
        _ => c,
    }
}

/// (batch 27) The category of the inner exception a retry wrapper's text names, where the
/// outermost class is a retry wrapper and the text names a class the class table decides.
fn retried_inner_class(f: &Failure) -> Option<Category> {
    let outer = f.error_class.first()?;
    let short = outer.rsplit(['.', ':']).next().unwrap_or(outer);
    if !tables::output_form::RETRY_WRAPPERS.contains(&short) {
        return None;
    }
    f.message
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.ends_with("Error") || w.ends_with("Exception"))
        .filter(|w| {
            !tables::output_form::RETRY_WRAPPERS
                .iter()
                .any(|r| w.ends_with(r))
        })
        .find_map(|w| match class_rule(w) {
            Some(ClassRule::Is(c)) if c != Category::Validation => Some(c),
            _ => None,
        })
}

fn normalized(name: &str) -> &str {
    name.strip_prefix("builtins.").unwrap_or(name)
}

/// The class table as a map (exact names) plus the few module-agnostic suffix rows.
struct ClassIndex {
    exact: std::collections::HashMap<&'static str, ClassRule>,
    suffixes: Vec<(&'static str, ClassRule)>,
}

/// Builds every table the classifier builds on first use (see `crate::warm`).
pub(crate) fn warm() {
    class_index();
    body::warm();
    text::warm();
    let _ = tables::code_row("");
    let _ = tables::CODES.len();
}

fn class_index() -> &'static ClassIndex {
    static I: std::sync::OnceLock<ClassIndex> = std::sync::OnceLock::new();
    I.get_or_init(|| {
        let mut exact = std::collections::HashMap::new();
        let mut suffixes = Vec::new();
        for (pattern, rule) in tables::CLASSES {
            match pattern.strip_prefix('.') {
                Some(suffix) => suffixes.push((suffix, *rule)),
                None => {
                    exact.entry(*pattern).or_insert(*rule);
                }
            }
        }
        ClassIndex { exact, suffixes }
    })
}

fn class_rule(name: &str) -> Option<ClassRule> {
    let idx = class_index();
    let name = normalized(name);
    if let Some(rule) = idx.exact.get(name) {
        return Some(*rule);
    }
    // (batch 19) A module whose classes are another's under the same names (httpcore's under
    // httpx's): read as the twin.
    if let Some(rule) = tables::clients::MODULE_TWINS.iter().find_map(|(from, to)| {
        let rest = name.strip_prefix(from)?;
        idx.exact.get(format!("{to}{rest}").as_str()).copied()
    }) {
        return Some(rule);
    }
    // `.Name` rows match `Name` in any module: the name ends with it after a `.` or `::`
    // (or is it).
    idx.suffixes
        .iter()
        .find(|(s, _)| {
            name.strip_suffix(s)
                .is_some_and(|head| head.is_empty() || head.ends_with('.') || head.ends_with("::"))
        })
        .map(|(_, r)| *r)
}

/// botocore generates one class per AWS error code (`botocore.errorfactory.ThrottlingException`),
/// and AWS's other SDKs name theirs the same way (the JS SDK's `ServiceUnavailableException`):
/// the class's name is the provider's code.
fn aws_code(name: &str) -> Option<&str> {
    if let Some(code) = name.strip_prefix("botocore.errorfactory.") {
        return Some(code);
    }
    let short = name.rsplit(['.', ':']).next().unwrap_or(name);
    (short.ends_with("Exception") && tables::code_row(&short.to_ascii_lowercase()).is_some())
        .then_some(short)
}

/// What the class chain says, read in one pass.
struct ClassFacts<'a> {
    /// The most specific known class's category (and whether it needs the TLS/DNS refinement).
    category: Option<(Category, bool)>,
    /// An LLM client's API-error base class is in the chain.
    api_error: bool,
    /// The AWS error code a botocore-generated class is named after.
    aws_code: Option<&'a str>,
}

impl<'a> ClassFacts<'a> {
    fn of(chain: &'a [String]) -> Self {
        let mut facts = ClassFacts {
            category: None,
            api_error: false,
            aws_code: None,
        };
        for name in chain {
            if facts.aws_code.is_none() {
                facts.aws_code = aws_code(name);
            }
            match class_rule(name) {
                Some(ClassRule::Is(c)) if facts.category.is_none() => {
                    facts.category = Some((c, false))
                }
                Some(ClassRule::NetworkOrConfig) if facts.category.is_none() => {
                    facts.category = Some((Category::Connection, true))
                }
                Some(ClassRule::ApiError) => facts.api_error = true,
                _ => {}
            }
        }
        facts
    }
}

/// A connection failure the class cannot tell apart: its text decides between a passing
/// failure, a set-up mistake and a timeout (`tables::NETWORK_PHRASES`).
fn network_or_configuration(hay: &str) -> Category {
    text::network()
        .first(hay)
        .map_or(Category::Connection, |p| p.category)
}

/// The message alone: a status it states (refined like a real one), then permanent phrases,
/// then transient ones.
fn message_category(f: &Failure, provider: Option<&ProviderError>, hay: &Hay) -> Option<Category> {
    if hay.get().is_empty() {
        return None;
    }
    let whole = f.message.trim();
    if let Some((_, c)) = tables::EXACT_MESSAGES
        .iter()
        .find(|(m, _)| whole.eq_ignore_ascii_case(m))
    {
        return Some(*c);
    }
    // (batch 26) A program the host could not start ("spawn npx ENOENT"): its set-up, before
    // the "connection failed" or "connection closed" the host says after it.
    if text::program_missing(hay.get()) {
        return Some(Category::Configuration);
    }
    if let Some(status) = text_status(f, hay) {
        return Some(refine_status(status, provider, hay));
    }
    // (batch 19) An SDK's own words for an answer it could not deserialize (async-openai's
    // "failed to deserialize api response: unknown variant ``, expected one of ...
    // `content_filter`", serde_json's Debug form): read before the words the answer or serde's
    // list of accepted values brings. A server's words about the request it got stay its own.
    // (batch 20) V8 quoting the head of a reply it could not parse, when the head is a server's
    // failure words ("Unexpected token 'I', \"Internal s\"... is not valid JSON"): an error page.
    if let Some(c) = text::unparsed_server_error(hay.get()) {
        return Some(c);
    }
    // (batch 27) An empty event at a stream's end: the stream stopped (`tables::decode`).
    if text::empty_stream_event(hay.get()) {
        return Some(Category::StreamInterrupted);
    }
    if text::decode().first(hay.get()).is_some() || text::serde_debug_error(hay.get()) {
        // (batch 20) The reply that failed to decode is a server's own failure in words (Llama
        // Stack's "500: Internal server error: An unexpected error occurred." inside a 200
        // stream, read by a Swift client as a chunk): the body's failure is the failure.
        let body = f.body.as_deref().map(|b| text::lower_bounded(b, MAX_SCAN));
        // (client catalogs) Or the reply as the decoder quotes it (json-iterator's "bigger
        // context ...|<html>...502 Bad Gateway...|", `client_catalogs::decoder_quote`).
        let reply = body
            .as_deref()
            .or_else(|| tables::client_catalogs::decoder_quote(hay.get()));
        if let Some(p) = reply
            .and_then(|b| text::transient().first(b))
            .filter(|p| matches!(p.category, Category::ServerError | Category::Overloaded))
        {
            return Some(p.category);
        }
        let of_request =
            text::request_json_fault(hay.get()) || text::go_request_unmarshal(hay.get());
        return Some(match of_request {
            true => Category::BadRequest,
            false => Category::InvalidResponse,
        });
    }
    // (batch 29) An error code run onto its message: the two read apart.
    if let Some(apart) = text::code_run_on(&f.message) {
        if let Some(p) = text::permanent().first(&apart) {
            return Some(p.category);
        }
        if let Some(p) = text::transient().first(&apart) {
            return Some(p.category);
        }
    }
    // (batch 29, 33b, 35b) The fetch words as a clause anywhere ("Error fetching from <url>: Load
    // failed"; the last line under a frame in any language, "API 请求失败：\nTXT\nLoad failed"),
    // unless a more specific network cause stands beside them (a timeout, ENOTFOUND).
    if text::fetch_failure(&f.message).is_some() {
        return Some(
            text::network()
                .first(hay.get())
                .map_or(Category::Connection, |p| p.category),
        );
    }
    // (batch 18) A quoted error the sentence ends on (a KeyError's key, undici's "terminated").
    if let Some(c) = text::last_clause(&f.message) {
        // (batch 24) A key nobody here knows decides nothing by itself: the sentence around it
        // may say whose code failed ("Failed to convert ChatCompletion messages into prompt
        // string with wrapper ... - error: 'function_call'", MemGPT: the app's).
        if c == Category::Unknown {
            if let Some(p) = text::permanent().first(hay.get()) {
                return Some(p.category);
            }
        }
        return Some(c);
    }
    if let Some(c) = text::grpc_status_prefix(&f.message) {
        // (batch 20) A transient status name only heads the text: a fault the words state
        // after it is the failure (Triton's "UNAVAILABLE: Internal: unexpected error when
        // creating modelInstanceState: [TensorRT-LLM][ERROR] Assertion failed: ..." is a model
        // that will not load, `tables::stated_faults`), and so is a connection never made
        // ("UNAVAILABLE: failed to connect to all addresses").
        if c.is_transient() {
            if let Some(p) = text::stated().first(hay.get()) {
                return Some(p.category);
            }
            if let Some(p) = text::transient()
                .first(hay.get())
                .filter(|p| p.category == Category::Connection)
            {
                return Some(p.category);
            }
        }
        return Some(c);
    }
    // A curl exit code names the transfer's failure ("curl: (92) HTTP/2 stream 1 was not closed
    // cleanly", "exited abnormally with code 92").
    // A transient code whose text names a set-up mistake ("curl: (35) ... SSLV3_ALERT_HANDSHAKE_FAILURE",
    // a certificate) is that mistake: the code only says where the transfer stopped.
    if let Some(c) = text::curl_code(hay.get()) {
        let setup = text::network()
            .first(hay.get())
            .filter(|p| p.category == Category::Configuration);
        return Some(match setup {
            Some(p) if c.is_transient() => p.category,
            _ => c,
        });
    }
    // A limit named by its window is a rate, whatever size words come with it.
    if let Some(p) = text::rate_window().first(hay.get()) {
        return Some(p.category);
    }
    // A limit stated exceeded with a window of a day or more ("Token limit (500,000 per day)
    // exceeded"): an allowance that no retry budget outlasts (CONTRACT §2).
    if text::contains_phrase(hay.get(), "limit")
        && text::contains_phrase(hay.get(), "exceeded")
        && long_window(f, hay)
    {
        return Some(Category::PaymentRequired);
    }
    if let Some(p) = text::permanent().first(hay.get()) {
        // (client catalogs) A broad word inside a client's whole canonical message yields to
        // that message (`client_catalogs::covering`): curl's "Empty reply from server" is the
        // link's, though "empty reply" alone is an answer's.
        if let Some(c) = tables::client_catalogs::covering(hay.get(), p.text) {
            return Some(c);
        }
        // (batch 20) A client's bug beside a provider's rate limit (a TypeError raised while
        // reading the 429's body, printed after the provider's sentence): the call reached the
        // provider and was throttled; the bug is only how the client fell over reading it.
        if p.category == Category::Programming {
            if let Some(r) = text::rate_limit().first(hay.get()) {
                return Some(r.category);
            }
        }
        // (batch 19) A schema check that names a reply's model (`LLMResultChunk`,
        // `ChatCompletion`): the reply failed it, not the model's structured output.
        if p.category == Category::Validation
            && (text::reply_model_validation(hay.get()) || text::scalar_given_none(hay.get()))
        {
            return Some(Category::InvalidResponse);
        }
        // (batch 24) A schema check that names the app's own parameters (`ReActParams`): its
        // set-up lacks what the model call needs, not the model's output.
        if p.category == Category::Validation && text::setup_model_validation(hay.get()) {
            return Some(Category::Configuration);
        }
        if p.category == Category::PaymentRequired
            && !p.stated
            && text::stated().first(hay.get()).is_none()
            && short_quota(f, hay)
        {
            return Some(Category::RateLimited);
        }
        // (batch 17) A JSON parse failure a server says of the request it received is the
        // request's (LM Studio's "Received request for ... with invalid JSON").
        if p.category == Category::InvalidResponse && text::request_json_fault(hay.get()) {
            return Some(Category::BadRequest);
        }
        // (batch 17) A wrapper's generic "Bad Request Error" around a transport failure it
        // names (Dify's "[models] Bad Request Error, The read operation timed out"): with no
        // status stated, the inner timeout or connection failure is the failure.
        if matches!(p.category, Category::BadRequest | Category::ClientError) && !p.stated {
            if let Some(c) = transport_words(hay) {
                return Some(c);
            }
        }
        // (batch 34a) The reason phrase of a proxy's refusal ("Tunnel connection failed: 403
        // Forbidden") is the proxy's, not the API's: the client's stated set-up decides.
        if !p.stated {
            if let Some(s) = text::network().first(hay.get()).filter(|s| s.stated) {
                return Some(s.category);
            }
        }
        return Some(p.category);
    }
    if text::invalid_named_key(hay.get()) {
        return Some(Category::Unauthorized);
    }
    if text::invalid_named_config(hay.get()) {
        return Some(Category::Configuration);
    }
    if let Some(c) = text::websocket_close_code(hay.get()).and_then(|code| {
        tables::WEBSOCKET_CLOSE_CODES
            .iter()
            .find(|(n, _)| *n == code)
            .map(|(_, c)| *c)
    }) {
        return Some(c);
    }
    // (batch 19) An inference engine that died under the request, in any of its names
    // ("MQLLMEngine is already dead", "EngineCore encountered an issue").
    if engine_died(hay) {
        return Some(Category::ServerError);
    }
    // (batch 19) A reply said to lack what the client needed ("No usage data in response").
    if text::reply_lacks(hay.get()) {
        return Some(Category::InvalidResponse);
    }
    text::transient()
        .first(hay.get())
        .map(|p| match p.category {
            // (batch 19) reqwest's bare decode error names a body of the wrong shape; a cut
            // only when the text places it in a stream or the transport.
            Category::StreamInterrupted if text::bare_body_decode(hay.get()) => {
                Category::InvalidResponse
            }
            // (batch 19) Words of a phase (a stream, a server's call) that only head a log line
            // whose detail is blank ("[useMastra] Streaming error:"): they say where it failed,
            // the cause is lost. (A cause named as a heading, "Connection error:", still says
            // what failed.)
            Category::StreamInterrupted | Category::ServerError
                if heading_without_detail(&f.message, p.text) =>
            {
                Category::Unknown
            }
            // (batch 32a) An app's advice to try later beside the cause it printed ("请求
            // ChatGPT 服务器时出现问题，请稍后再试 错误信息: RemoteProtocolError: peer closed
            // connection ..."): the cause is the failure, the advice only its wrapper.
            // (batch 32a) A server's fault named beside a deadline that ran out (google-api-core's
            // "Deadline of 60.0s exceeded while calling target function, last exception: 503
            // The service is currently unavailable."): the deadline is what ended the call.
            Category::ServerError if says_deadline(hay) => Category::Timeout,
            Category::ServerError if tables::TRY_LATER.contains(&p.text) => {
                cause_beside_advice(hay.get()).unwrap_or(Category::ServerError)
            }
            // A JSON parse failure said of the request the server received (above).
            Category::InvalidResponse if text::request_json_fault(hay.get()) => {
                Category::BadRequest
            }
            // (batch 18) A stream cut that states its cause ("stream disconnected before
            // completion: Rate limit reached for ..."): the stated rate limit is the failure, and
            // its wait, not a reconnect, is what the retry needs.
            Category::StreamInterrupted if text::rate_limit().first(hay.get()).is_some() => {
                Category::RateLimited
            }
            // (batch 30a) A connect timeout's number inside a client's failed-to-connect
            // words (`clients::CONNECT_FAILED_WRAPPERS`): the connection is what failed.
            Category::Timeout if connect_failed_wrapper(hay) => Category::Connection,
            // (batch 33a) A link's frame that only says which layer failed ("I/O error on POST
            // request for ...: Read timed out", "Cannot connect to API: Connect Timeout
            // Error", `layer_words::LINK_FRAMES`): the cause it prints, or a class of the chain
            // names, is the failure (batch 32a's "Headers Timeout Error" under the AI SDK's
            // frame is one such cause).
            Category::Connection if tables::layer_words::LINK_FRAMES.contains(&p.text) => {
                cause_past_link_frames(f, hay)
            }
            // (batch 32a) undici's timer for an answer on a connection it made, under other
            // connection words ("UND_ERR_HEADERS_TIMEOUT"): the server was slow, a timeout.
            Category::Connection if says_any(hay, tables::sdk_runtime_words::ANSWER_TIMERS) => {
                Category::Timeout
            }
            // (batch 32a) A stream closed before its first payload: nothing had streamed, so
            // the connection failed, not an answer under way.
            Category::StreamInterrupted
                if says_any(hay, tables::sdk_runtime_words::NOTHING_STREAMED) =>
            {
                Category::Connection
            }
            c => c,
        })
}

/// (batch 32b) A permanent nature that an error type named in the message states by its
/// words (`names::category`), other than a generic request fault or a bug: a key, a set-up,
/// a payment, an access.
fn permanent_name(f: &Failure) -> Option<Category> {
    names::category(std::iter::empty(), [f.message.as_str()], |_| None).filter(|c| {
        !c.is_transient()
            && !matches!(
                c,
                Category::BadRequest
                    | Category::ClientError
                    | Category::Unprocessable
                    | Category::Programming
                    | Category::Unknown
            )
    })
}

/// (batch 32b) The words place the failure after the answer had started streaming.
fn mid_answer(hay: &Hay) -> bool {
    tables::stated_refusals::MID_ANSWER
        .iter()
        .any(|w| text::contains_phrase(hay.get(), w))
}

/// (batch 32a) The text's first network or transient phrase names a link that failed; a
/// server-error word the wrapper's own class name puts first ("InternalServerError: ...") is
/// looked past. A bare EOF stays a server's output ending, a TLS session cut
/// (`sdk_runtime_words::TLS_CUT`) is the link's.
fn names_a_failed_link(hay: &Hay) -> bool {
    let link = |p: &tables::Phrase| {
        p.category == Category::Connection
            && (!p.text.contains("eof") || tables::sdk_runtime_words::TLS_CUT.contains(&p.text))
    };
    let h = hay.get();
    if text::network().first(h).is_some_and(link) {
        return true;
    }
    // (batch 33a) Server-error words are looked past as any wrapper's are (`first_past`).
    text::transient()
        .first_past(h, |p| p.category == Category::ServerError)
        .is_some_and(link)
}

/// (batch 32a) Any of `words` occurs in the text as a phrase.
fn says_any(hay: &Hay, words: &[&str]) -> bool {
    words.iter().any(|w| text::contains_phrase(hay.get(), w))
}

/// (batch 32a) The text names a deadline that ran out (`sdk_runtime_words::DEADLINE`).
fn says_deadline(hay: &Hay) -> bool {
    tables::sdk_runtime_words::DEADLINE
        .iter()
        .any(|w| text::contains_phrase(hay.get(), w))
}

/// (batch 32a) The transient nature the text names besides its advice to try again later,
/// if more specific than a server's fault. (batch 33a) The advice is looked past as any
/// wrapper's words are (`first_past`).
fn cause_beside_advice(hay: &str) -> Option<Category> {
    text::transient()
        .first_past(hay, |p| tables::TRY_LATER.contains(&p.text))
        .map(|p| p.category)
        .filter(|c| *c != Category::ServerError)
}

/// (batch 33a) What a link's frame (`layer_words::LINK_FRAMES`) wraps. Past the frames the
/// text is read as a connection class's is (`network_or_configuration`): a timeout it names
/// is the failure, before any socket's words after it (a client's timer closes its own socket:
/// "...: timeout] with root cause java.net.SocketException: Socket closed"); else another
/// transient cause it names; else a class of the chain that names a timeout by its words (Spring
/// around Netty's `ReadTimeoutException`, whose message is empty); else the frame's connection.
/// A connect timeout inside a failed new connection stays a connection (batch 30a).
fn cause_past_link_frames(f: &Failure, hay: &Hay) -> Category {
    let frame = |p: &tables::Phrase| tables::layer_words::LINK_FRAMES.contains(&p.text);
    if connect_failed_wrapper(hay) {
        return Category::Connection;
    }
    let cause = text::transient().first_past(hay.get(), frame);
    // A timeout word inside a connection's own phrase ("keepalive ping timeout", a WebSocket
    // closed for a missed ping) is that connection's, not a timer of the call.
    let timer = |t: &tables::Phrase| {
        t.category == Category::Timeout
            && !text::transient().holds(hay.get(), |c| {
                c.category == Category::Connection && c.text != t.text && c.text.contains(t.text)
            })
    };
    if text::network()
        .first_past(hay.get(), frame)
        .is_some_and(timer)
    {
        return Category::Timeout;
    }
    if let Some(p) = cause.filter(|p| p.category != Category::ServerError) {
        return p.category;
    }
    let names_timeout = |name: &String| {
        class_rule(name).is_none()
            && names::category([name.as_str()], std::iter::empty(), |_| None)
                == Some(Category::Timeout)
    };
    match f.error_class.iter().any(names_timeout) {
        true => Category::Timeout,
        false => Category::Connection,
    }
}

/// (batch 30a) The words wrap a socket error in a client's failed new connection.
fn connect_failed_wrapper(hay: &Hay) -> bool {
    tables::clients::CONNECT_FAILED_WRAPPERS
        .iter()
        .any(|w| text::contains_phrase(hay.get(), w))
}

/// Whether `phrase` ends `message` as a heading with nothing after its colon ("Streaming
/// error:").
fn heading_without_detail(message: &str, phrase: &str) -> bool {
    let m = message.trim_end().to_lowercase();
    m.strip_suffix(':')
        .map(str::trim_end)
        .is_some_and(|head| head.ends_with(phrase))
}

/// Read where no evidence decided and no wait was asked: class names no table lists, by their
/// words (`names`: the raising layer's own verdict), then a reason phrase said whole
/// ({"detail":"Not Found"}), then a nature said in parts (`nearby`: a subject and what
/// happened to it, "please try again").
fn last_words(
    f: &Failure,
    provider: Option<&ProviderError>,
    hay: &Hay,
) -> Option<(Category, Evidence)> {
    // A class's word of passing yields, as the families' words do, to a fault the text names
    // ("ServiceUnavailableError: your subscription has ended").
    if let Some(found) = class_words(f, hay)
        .filter(|(c, _)| !c.is_transient() || !nearby::names_caller_fault(hay.get()))
    {
        return Some(found);
    }
    if let Some(n) =
        nearby::reason_status(&f.message).or_else(|| nearby::answered_status(hay.get()))
    {
        return Some((refine_status(n, provider, hay), Evidence::Message));
    }
    if let Some(c) = nearby::category(hay.get()) {
        let c = match c {
            Category::Connection => network_or_configuration(hay.get()),
            c => c,
        };
        return Some((c, Evidence::Message));
    }
    // (batch 19) A class whose library documents the status it stands for, where nothing else
    // spoke (LiteLLM's `APIError`, its generic 500, with an empty text).
    let documented = f.error_class.iter().find_map(|name| {
        tables::agents::DOCUMENTED_STATUS
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    })?;
    Some((
        refine_status(documented, provider, hay),
        Evidence::ErrorClass,
    ))
}

/// The verdict of class names no table lists (`names::category`), a connection's read through
/// the network table as a known connection class's is (a certificate or a bad host is set-up).
fn class_words(f: &Failure, hay: &Hay) -> Option<(Category, Evidence)> {
    let known = |name: &str| match class_rule(name) {
        Some(ClassRule::Is(c)) => Some(Some(c)),
        Some(ClassRule::NetworkOrConfig) => Some(Some(Category::Connection)),
        Some(ClassRule::ApiError) => Some(None),
        None => None,
    };
    let texts =
        std::iter::once(f.message.as_str()).chain(f.inner_messages.iter().map(String::as_str));
    let c = names::category(f.error_class.iter().map(String::as_str), texts, known)?;
    let c = match c {
        Category::Connection => network_or_configuration(hay.get()),
        // A cancellation is never read from words: only the class chain says it.
        Category::Cancelled => return None,
        c => c,
    };
    Some((c, Evidence::ErrorClass))
}

fn short_class_name(name: Option<&str>) -> Option<String> {
    let name = name?;
    let short = name.rsplit("::").next().unwrap_or(name);
    let short = short.rsplit('.').next().unwrap_or(short);
    (!short.is_empty()).then(|| short.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One pass over the headers finds what `Headers::get` finds for each name.
    #[test]
    fn header_facts_match_headers_get() {
        let names = [
            "x-amzn-errortype",
            "X-Should-Retry",
            "x-should-retry",
            "X-AMZN-ERRORTYPE",
            "retry-after",
        ];
        let values = [
            "true",
            " FALSE ",
            "maybe",
            "ThrottlingException:http://x",
            "",
        ];
        for a in 0..names.len() {
            for b in 0..names.len() {
                for c in 0..values.len() {
                    let f = Failure::http(500, "x")
                        .with_header(names[a], values[c])
                        .with_header(names[b], values[(c + 1) % values.len()])
                        .with_header(names[(a + b) % names.len()], values[(c + 2) % values.len()]);
                    let facts = HeaderFacts::of(&f);
                    assert_eq!(facts.amzn_error_type, f.headers.get("x-amzn-errortype"));
                    let want = f.headers.get("x-should-retry").and_then(should_retry_value);
                    assert_eq!(facts.should_retry, want);
                }
            }
        }
    }

    /// The word-at-a-time class hash finds every table row and no stranger.
    #[test]
    fn class_index_finds_every_row() {
        for (pattern, _) in tables::CLASSES {
            let name = pattern.strip_prefix('.').unwrap_or(pattern);
            let first = tables::CLASSES
                .iter()
                .find(|(p, _)| p == pattern)
                .map(|(_, r)| *r);
            assert_eq!(class_rule(name), first, "{pattern}");
            assert_eq!(class_rule(&format!("builtins.{name}")), class_rule(name));
        }
        // Module-agnostic rows match after a `.` or a `::`, never inside a name.
        assert_eq!(
            class_rule("groq.RateLimitError"),
            Some(ClassRule::Is(Category::RateLimited))
        );
        assert_eq!(
            class_rule("Groq::RateLimitError"),
            Some(ClassRule::Is(Category::RateLimited))
        );
        assert_eq!(class_rule("groq.MyRateLimitError"), None);
        for stranger in [
            "",
            "Exception",
            "openai.APIErrorX",
            "openai.XAPIError",
            "RubyLLM::ModelNotFoundErrorX",
            "a.b.c",
        ] {
            assert_eq!(class_rule(stranger), None, "{stranger}");
        }
    }
}

/// The rules of issue 20, one family per test: waits in bodies and words, quota windows,
/// providers' own words and codes, envelopes that quote others, transport texts.
#[cfg(test)]
mod issue20 {
    use super::*;

    fn c(f: &Failure) -> Classification {
        classify_at(f, SystemTime::UNIX_EPOCH)
    }

    fn cat(f: &Failure) -> (Category, bool) {
        let r = c(f);
        (r.category, r.transient)
    }

    /// Batch 17's families: each rule on a text of its own, not the corpus case it came from.
    #[test]
    fn batch17_families() {
        use Category::*;
        // Quota windows in kebab-case ids; a throttle's own code or ask to wait.
        assert_eq!(
            cat(&Failure::http(
                429,
                "Rate limit exceeded: requests-per-month"
            )),
            (PaymentRequired, false)
        );
        assert_eq!(
            cat(&Failure::http(
                429,
                "Rate limit exceeded: tokens-per-minute"
            )),
            (RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::new(
                "ThrottlingException: Too many tokens in this minute"
            )),
            (RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::new(
                "Too many tokens, please wait before trying again."
            )),
            (RateLimited, true)
        );
        // A count limit: later is a rate, today's is an allowance.
        assert_eq!(
            cat(&Failure::new("调用次数已达上限，请稍后重试")),
            (RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::new("今日调用次数已达上限，请稍后再试")),
            (PaymentRequired, false)
        );
        // A 402 of rate words only, and one with billing words.
        assert_eq!(
            cat(&Failure::http(402, "Rate limit reached")),
            (RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::http(
                402,
                "Rate limit reached. Add credits to continue"
            )),
            (PaymentRequired, false)
        );
        // A local server's words that repeat for the same request overrule its 500.
        assert_eq!(
            cat(&Failure::http(500, "unable to load model: /m/blobs/x")),
            (Configuration, false)
        );
        assert_eq!(
            cat(&Failure::http(500, "template error: Value is not callable")),
            (BadRequest, false)
        );
        // Transient words of servers and clients.
        for (text, want) in [
            ("Engine loop is not running", ServerError),
            ("AsyncLLM failed: MQEngineDeadError", ServerError),
            ("runner terminated unexpectedly", ServerError),
            ("chat stream failed", StreamInterrupted),
            ("SSE stream ended early", StreamInterrupted),
            ("TypeError: Network request failed", Connection),
            ("Your request failed. Please retry.", ServerError),
            ("抱歉，您的请求失败", ServerError),
        ] {
            assert_eq!(cat(&Failure::new(text)), (want, true), "{text}");
        }
        // Codes run together and bills in words.
        for (text, want) in [
            ("InvalidApiKey: check your key", Unauthorized),
            ("Invalid API-key", Unauthorized),
            ("Your account has unpaid invoices", PaymentRequired),
            ("HTTP error: {\"detail\":\"Not Found\"}", NotFound),
            ("Error creating: claude-x|anthropic", Configuration),
            (
                "Error building Component Agent: 2 validation errors for Agent",
                Programming,
            ),
        ] {
            assert_eq!(cat(&Failure::new(text)), (want, false), "{text}");
        }
        // Reading order: an overload beside a generic server-error name; an inner 408 under a
        // 500; a quoted event read by its words; a generic bad request around a transport
        // failure; a JSON fault said of the request.
        assert_eq!(
            cat(&Failure::http(
                503,
                "InternalServerError: Upstream - Overloaded"
            )),
            (Overloaded, true)
        );
        assert_eq!(
            cat(&Failure::http(
                500,
                "Error: Request failed with status code 408"
            )),
            (Timeout, true)
        );
        assert_eq!(
            cat(&Failure::new(
                "{'type': 'error', 'data': 'x', 'cause': 'Request timed out.'}"
            )),
            (Timeout, true)
        );
        assert_eq!(
            cat(&Failure::new("Bad Request Error, Connection reset by peer")),
            (Connection, true)
        );
        assert_eq!(
            cat(&Failure::new("Bad Request Error, read timed out")
                .with_class(["app.errors.InvokeBadRequestError"])),
            (Timeout, true)
        );
        assert_eq!(
            cat(&Failure::new(
                "Received request for /v1/completions with malformed JSON body"
            )),
            (BadRequest, false)
        );
    }

    /// Batch 18's families: each rule on a text of its own, not the corpus case it came from.
    #[test]
    fn batch18_families() {
        use Category::*;
        // Permanent natures in words.
        for (text, want) in [
            (
                "Agent failed: the model gave a None or empty answer",
                InvalidResponse,
            ),
            (
                "relay: error unmarshalling upstream body: unexpected end of JSON",
                InvalidResponse,
            ),
            (
                "upstream reply is not 'text/event-stream' but text/html",
                InvalidResponse,
            ),
            ("解析失败：响应格式不正确", InvalidResponse),
            (
                "AttributeError: 'dict' object has no attribute 'usage'",
                Programming,
            ),
            (
                "RuntimeError: No LM is loaded. Configure one first.",
                Configuration,
            ),
            (
                "400 from proxy: x-route-key header is required",
                Configuration,
            ),
            ("proxy: Authorization header is required", Unauthorized),
            ("错误：令牌不存在", Unauthorized),
            ("Error in code parsing: no code block found", Validation),
            (
                "Failed to receive tool input: invalid type: string, expected u32",
                Validation,
            ),
            (
                "google.auth.exceptions.RefreshError: Reauthentication is needed.",
                Unauthorized,
            ),
            (
                "error code 14: IAM Certification failed for this AK",
                Unauthorized,
            ),
            (
                "Request refused: you have been blocked by the site owner",
                Forbidden,
            ),
            (
                "Request denied by risk control, please contact support",
                Forbidden,
            ),
            ("当前账号暂未开放该模型", Forbidden),
            ("您无权限调用此接口", Forbidden),
            ("指定的模型不存在", NotFound),
            ("lookup failed: resource not found", NotFound),
            (
                "parameter check failed, temperature range is (0, 1]",
                BadRequest,
            ),
            (
                "The encrypted content for item rs_abc could not be verified.",
                BadRequest,
            ),
            (
                "prompt rejected: context size exceeded (n_ctx 2048)",
                ContextOverflow,
            ),
            (
                "Monthly quota reached. Ask an admin to enable overages.",
                PaymentRequired,
            ),
            ("Error: AbortError: The user aborted a request.", Cancelled),
            ("DOMException: This operation was aborted", Cancelled),
            (
                "warn: request disconnected from the client side, aborting",
                Cancelled,
            ),
            (
                "Access to fetch at 'https://x.test/v1' has been blocked by CORS policy",
                Configuration,
            ),
            (
                "Gateway said: [invalid_request_error] unknown field 'foo'",
                BadRequest,
            ),
            (
                "Invalid or missing API key for this workspace",
                Unauthorized,
            ),
            ("Oops. Please contact the admin to fix this.", Unknown),
            (
                "Save failed\n[Errno 28] No space left on device - Failed to fetch",
                Unknown,
            ),
            (
                "Sorry. This may be due to: a filter; a long context; load",
                Unknown,
            ),
        ] {
            assert_eq!(cat(&Failure::new(text)), (want, false), "{text}");
        }
        // A timeout from an abort signal stays a timeout.
        assert_eq!(
            cat(&Failure::new(
                "TimeoutError: The operation was aborted due to timeout"
            )),
            (Timeout, true)
        );
        // Transient natures in words.
        for (text, want) in [
            ("Could not establish a connection to the server", Connection),
            ("Sorry, we had trouble connecting to Anthropic", Connection),
            ("An error occurred while streaming response from the model", StreamInterrupted),
            ("agent: streaming error, retrying", StreamInterrupted),
            ("transient API error (will retry)", ServerError),
            ("InternalError: ServiceClient failure for Search", ServerError),
            ("Failed to create stream for chat", ServerError),
            ("您问得太频繁了", RateLimited),
            (
                "rpc error: code = Unavailable desc = connection error: desc = \"transport: dial tcp [::1]:50051: connect: connection refused\"",
                Connection,
            ),
        ] {
            assert_eq!(cat(&Failure::new(text)), (want, true), "{text}");
        }
        // A stream cut whose stated cause is a rate limit is the rate limit.
        assert_eq!(
            cat(&Failure::new(
                "stream disconnected before completion: Rate limit exceeded, try again in 4s"
            )),
            (RateLimited, true)
        );
        // Gemini's RetryInfo in protobuf text form: a wait, so a per-minute quota; a day's
        // quota id still makes it payment.
        let r = c(&Failure::http(
            429,
            "429 You exceeded your current quota, please check your plan and billing details. [retry_delay {\n  seconds: 7\n  nanos: 500000000\n}\n]",
        ));
        assert_eq!((r.category, r.retry_after), (RateLimited, Some(7.5)));
        assert_eq!(
            cat(&Failure::http(
                429,
                "429 You exceeded your current quota, please check your plan and billing details. [violations {\n  quota_id: \"GenerateRequestsPerDayPerProjectPerModel-FreeTier\"\n}\n, retry_delay {\n  seconds: 7\n}\n]"
            )),
            (PaymentRequired, false)
        );
        // Node's inspected TypeError with a refused connection under it.
        assert_eq!(
            cat(&Failure::new(
                "[TypeError: fetch failed] {\n  cause: [Error: connect ECONNREFUSED ::1:8080] { code: 'ECONNREFUSED' }\n}"
            )
            .with_class(["TypeError"])),
            (Connection, true)
        );
        // A KeyError's quoted key after an error's name: a reply's key is an invalid response,
        // another key says nothing; a printed object's field is no KeyError.
        assert_eq!(
            cat(&Failure::new("Chain failed: KeyError: 'candidates'")),
            (InvalidResponse, false)
        );
        assert_eq!(
            cat(&Failure::new("openai.APIConnectionError: 'model_id'")),
            (Unknown, false)
        );
        assert_eq!(
            cat(&Failure::new("Bot error: the call ended: terminated")),
            (StreamInterrupted, true)
        );
        // Stated caller faults under a server's 500, and re-authentication under a transient
        // class.
        for (status, text, want) in [
            (500, "Request method 'POST' is not supported", Configuration),
            (
                500,
                "token: invalid_request: The request is missing a required parameter",
                BadRequest,
            ),
            (
                500,
                "Plugin x not found. Please install it first",
                Configuration,
            ),
        ] {
            assert_eq!(cat(&Failure::http(status, text)), (want, false), "{text}");
        }
        assert_eq!(
            cat(
                &Failure::new("Reauthentication is needed. Run the login command.")
                    .with_class(["litellm.InternalServerError"])
            ),
            (Unauthorized, false)
        );
        // A client's context line alone says nothing; with its cause it is that cause.
        assert_eq!(
            cat(&Failure::new("Failed to stream completion")),
            (Unknown, false)
        );
        assert_eq!(
            cat(&Failure::new(
                "failed to stream completion: connection reset by peer"
            )),
            (Connection, true)
        );
        // A 503 that names a rate limit is a throttle.
        assert_eq!(
            cat(&Failure::http(503, "Too many queued: rate-limit reached")),
            (RateLimited, true)
        );
        // Mistral's 3230 is the order type: an order text is a bad request, the count text a
        // pairing.
        let order = r#"{"object":"error","message":"Unexpected role 'assistant' after role 'user'","type":"invalid_request_message_order","param":null,"code":"3230"}"#;
        assert_eq!(
            cat(&Failure::http(400, order).with_body(order)),
            (BadRequest, false)
        );
        let count = r#"{"object":"error","message":"Not the same number of function calls and responses","type":"invalid_request_message_order","param":null,"code":"3230"}"#;
        assert_eq!(
            cat(&Failure::http(400, count).with_body(count)),
            (OrphanToolCalls, false)
        );
        // A pydantic error located in a reply's answers is the reply's fault.
        assert_eq!(
            cat(&Failure::new(
                "1 validation error for ChatCompletion\nchoices.0.message\n  Field required"
            )),
            (InvalidResponse, false)
        );
    }

    /// Batch 18's new transient words never carry a permanent fault into a retry: each family
    /// beside a billing, auth, context, day-quota or caller fault is not retried.
    #[test]
    fn batch18_transient_words_yield_to_permanent_faults() {
        for f in [
            Failure::new("stream disconnected before completion: Your credit balance is too low"),
            Failure::new("couldn't establish a connection: invalid api key"),
            Failure::new("We're having trouble connecting to the model provider: insufficient balance"),
            Failure::new("transient API error: maximum context length exceeded"),
            Failure::new("Streaming error: billing hard limit reached"),
            Failure::new("Failed to create stream: the model `x` does not exist"),
            Failure::new("ServiceClient failure: Unauthorized, invalid token"),
            Failure::new("抱歉，你问的太频繁了，今日次数已用完，请明天再试"),
            Failure::http(503, "rate-limit: daily quota exceeded (requests per day)"),
            Failure::new("An error occurred while processing the request: 401 Unauthorized"),
            Failure::new("rpc error: code = Unavailable desc = connection error: desc = \"transport: authentication handshake failed: x509: certificate signed by unknown authority\""),
        ] {
            let r = classify_at(&f, SystemTime::UNIX_EPOCH);
            assert!(!r.transient, "{}: {:?}", f.message, r.category);
        }
    }

    /// Batch 19's families (the agents', frameworks' and apps' half): each rule on texts of
    /// its sources, not the corpus case it came from.
    #[test]
    fn batch19b_families() {
        use Category::*;
        // Permanent natures in words: empty replies, replies without what was needed, a reply
        // model's schema check, credentials never set, unusable URLs, unserializable requests,
        // tool pairing said by a chat template.
        for (f, want) in [
            (Failure::new("ValueError: Empty response from Gemini"), InvalidResponse),
            (Failure::new("extract: empty response from Claude"), InvalidResponse),
            (Failure::new("agent run failed: No choices in the model response"), InvalidResponse),
            (Failure::new("tool call arguments missing from the response"), InvalidResponse),
            (
                Failure::new("1 validation error for ChatCompletionChunk\nchoices\n  Field required [type=missing]"),
                InvalidResponse,
            ),
            (
                Failure::new("2 validation errors for GenerateContentResponse\nusage_metadata\n  Input should be a valid dictionary"),
                InvalidResponse,
            ),
            (
                Failure::new("openai.OpenAIError: The api_key client option must be set either by passing api_key to the client or by setting the OPENAI_API_KEY environment variable"),
                Configuration,
            ),
            (
                Failure::new("OpenAIError: The OPENAI_API_KEY environment variable is missing or empty; either provide it, or instantiate the OpenAI client with an apiKey option"),
                Configuration,
            ),
            (
                Failure::new("\"Could not resolve authentication method. Expected either api_key or auth_token to be set.\""),
                Configuration,
            ),
            (
                Failure::new("1 validation error for ChatOpenAI\n__root__\n  Did not find openai_api_key, please add an environment variable `OPENAI_API_KEY` which contains it, or pass `openai_api_key` as a named parameter. (type=value_error)"),
                Configuration,
            ),
            (
                Failure::new("Error building Component Anthropic: Invalid value type `<class 'NoneType'>` for input `api_key`"),
                Configuration,
            ),
            (
                Failure::new("Request URL has an unsupported protocol 'ws://'.").with_class(["httpcore.UnsupportedProtocol"]),
                Configuration,
            ),
            (
                Failure::new("Post \"localhost:11434/api/chat\": unsupported protocol scheme \"localhost\""),
                Configuration,
            ),
            (
                Failure::new("Invalid URL 'api.openai.com/v1/chat': No scheme supplied. Perhaps you meant https://api.openai.com/v1/chat?"),
                Configuration,
            ),
            (Failure::new("builder error: relative URL without a base"), Configuration),
            (
                Failure::new("An invalid request URI was provided. Either the request URI must be an absolute URI or BaseAddress must be set."),
                Configuration,
            ),
            (Failure::new("Failed to parse URL from /v1/chat/completions"), Configuration),
            (Failure::new("Failed to serialize request body: key must be a string"), BadRequest),
            (Failure::new("Connection error.\nSerialization error in ChatRequest"), BadRequest),
            (
                Failure::http(500, "TemplateError: Message has tool role, but there was no previous assistant message with a tool call!"),
                OrphanToolCalls,
            ),
            (Failure::new("Error: No content generated from Groq API"), InvalidResponse),
            (Failure::new("Error: response.choices is empty"), InvalidResponse),
            (Failure::new("The completion was empty, please try again"), InvalidResponse),
            (
                Failure::new("ValueError: Missing key inputs argument! To use the Google AI API, provide (`api_key`) arguments."),
                Configuration,
            ),
            (
                Failure::http(500, "After the optional system message, conversation roles must alternate user/assistant/user/assistant/..."),
                BadRequest,
            ),
            (
                Failure::http(500, "Error rendering prompt with jinja template: \"System role not supported\""),
                BadRequest,
            ),
            (
                Failure::new("TypeError: Object of type datetime is not JSON serializable"),
                Programming,
            ),
            (
                Failure::http(400, "tool_use blocks must be followed by a user message with tool_result blocks"),
                OrphanToolCalls,
            ),
        ] {
            assert_eq!(cat(&f), (want, false), "{}", f.message);
        }
        // A model missing from the client's own registry is set-up; a provider's answer that
        // it is missing stays not_found.
        assert_eq!(
            cat(&Failure::new(
                "Error: Model not found: anthropic/claude-x. Did you mean: anthropic/claude-3?"
            )),
            (Configuration, false)
        );
        assert_eq!(
            cat(&Failure::new("ProviderModelNotFoundError\n data: { providerID: \"openrouter\", modelID: \"x\", suggestions: [\"y\"] }")
                .with_class(["ProviderModelNotFoundError"])),
            (Configuration, false)
        );
        assert_eq!(
            cat(&Failure::http(
                404,
                "Model not found: gpt-x. Did you mean gpt-4?"
            )),
            (NotFound, false)
        );
        assert_eq!(
            cat(&Failure::new("").with_body(r#"{"error":{"code":"model_not_found","message":"The model x does not exist. Did you mean y?"}}"#)),
            (NotFound, false)
        );
        // Transient natures: a scheduler without a node, a 500 around a failed connection,
        // httpcore's classes as httpx's, undici's words behind a prefix, LiteLLM's APIError.
        for (f, want) in [
            (Failure::new("[Service Manager] Start Service error: No available nodes"), ServerError),
            (Failure::http(500, "Open WebUI: Server Connection Error"), Connection),
            (Failure::http(500, "proxy: dial tcp 10.0.0.2:8000: connect: connection refused"), Connection),
            (
                Failure::http(500, "an error was encountered while running the model: unexpected EOF"),
                ServerError,
            ),
            (Failure::new("[Errno 111] Connection refused").with_class(["httpcore.ConnectError"]), Connection),
            (Failure::new("").with_class(["httpcore.ReadTimeout"]), Timeout),
            (
                Failure::new("chat request failed: TypeError: fetch failed\n    at node:internal/deps/undici/undici:13502:13")
                    .with_class(["TypeError"]),
                Connection,
            ),
            (
                Failure::new("litellm.APIError: APIError: GroqException - ").with_class(["litellm.APIError"]),
                ServerError,
            ),
        ] {
            assert_eq!(cat(&f), (want, true), "{}", f.message);
        }
        // What stays as it was: a JS TypeError of code, an error's own details missing, a
        // request model's schema check, a transient heading with nothing under it.
        assert_eq!(
            cat(&Failure::new("TypeError: x.map is not a function").with_class(["TypeError"])),
            (Programming, false)
        );
        assert!(
            !cat(&Failure::new(
                "Request failed (no error message in response)"
            ))
            .1
        );
        assert_ne!(
            cat(&Failure::new(
                "1 validation error for ChatCompletionRequest\nmessages\n  Field required"
            ))
            .0,
            InvalidResponse
        );
        // A request's part said empty is no empty reply.
        assert_ne!(
            cat(&Failure::new("The messages array is empty")).0,
            InvalidResponse
        );
        assert_eq!(
            cat(&Failure::new("[agent] Streaming error:")),
            (Unknown, false)
        );
        assert!(cat(&Failure::new("[agent] Streaming error: socket hang up")).1);
        assert_eq!(
            cat(&Failure::new("Upstream request failed:")),
            (Unknown, false)
        );
        assert_eq!(cat(&Failure::new("Connection error:")), (Connection, true));
    }

    /// The transient families of batch 19 yield to a permanent fault named beside them.
    #[test]
    fn batch19_transient_words_yield_to_permanent_faults() {
        for f in [
            Failure::new("no available node: insufficient balance, please recharge"),
            Failure::http(
                500,
                "Open WebUI: Server Connection Error: Your credit balance is too low to access the API",
            ),
            Failure::http(
                500,
                "connection refused: maximum context length is 8192 tokens",
            ),
            Failure::new(
                "litellm.APIError: APIError: OpenAIException - Your credit balance is too low",
            )
            .with_class(["litellm.APIError"]),
            Failure::new(
                "chat failed: TypeError: fetch failed: unsupported protocol scheme \"localhost\"",
            ),
        ] {
            let r = classify_at(&f, SystemTime::UNIX_EPOCH);
            assert!(!r.transient, "{}: {:?}", f.message, r.category);
        }
    }

    /// Batch 14's families: each rule on a text of its own, not the corpus case it came from.
    #[test]
    fn batch15_families() {
        use Category::*;
        // Statuses stated in more shapes: "(NNN)" after an introducer (botocore's "An error
        // occurred (404)"), requests' "NNN Client Error:" inside a wrapper's sentence, Spring
        // AI's "NNN - <body>"; HF Hub's "401 Client Error." (no colon) is left to its words.
        assert_eq!(
            cat(&Failure::new(
                "An error occurred (403) when calling the Foo operation"
            )),
            (Forbidden, false)
        );
        assert_eq!(
            cat(&Failure::new("step failed: API Error (502): upstream")),
            (ServerError, true)
        );
        assert_eq!(
            cat(&Failure::new(
                "Agent step failed:\n400 Client Error: Bad Request for url: x"
            )),
            (BadRequest, false)
        );
        assert_eq!(
            cat(&Failure::new("409 - {\"detail\":\"conflict\"}")),
            (ClientError, false)
        );
        assert_eq!(
            cat(&Failure::new("503 - <html>down</html>")),
            (ServerError, true)
        );
        assert_eq!(cat(&Failure::new("Not Found")), (NotFound, false));
        // curl's exit codes, however a client prints them; an unlisted code is no evidence.
        assert_eq!(
            cat(&Failure::new("curl: (28) Operation timed out")),
            (Timeout, true)
        );
        assert_eq!(
            cat(&Failure::new("curl process exited abnormally with code 56")),
            (Connection, true)
        );
        assert_eq!(
            cat(&Failure::new("curl: (6) Could not resolve host: x")),
            (Configuration, false)
        );
        assert_eq!(cat(&Failure::new("exited with code 56")), (Unknown, false));
        // Other runtimes' transport words.
        assert_eq!(
            cat(&Failure::new("request died: Net::OpenTimeout")),
            (Timeout, true)
        );
        assert_eq!(
            cat(&Failure::new(
                "{:error, %Mint.TransportError{reason: :closed}}"
            )),
            (Connection, true)
        );
        assert_eq!(
            cat(&Failure::new("canceled due to the configured HttpClient.Timeout of 30 seconds elapsing. Unable to read data from the transport connection")),
            (Timeout, true)
        );
        // Stream ends, in English and Chinese; a limit to come back for.
        assert_eq!(
            cat(&Failure::new("OpenAI stream ended before [DONE]")),
            (StreamInterrupted, true)
        );
        assert_eq!(
            cat(&Failure::new("响应异常中断")),
            (StreamInterrupted, true)
        );
        assert_eq!(
            cat(&Failure::new("Limit reached. Come back later.")),
            (RateLimited, true)
        );
        assert_eq!(cat(&Failure::new("负载已满")), (Overloaded, true));
        // A quota whose reset is named, a count over its limit, a day's limit exceeded.
        assert_eq!(
            cat(&Failure::http(429, "Your quota will reset after 3h2m1s.")),
            (PaymentRequired, false)
        );
        assert_eq!(
            cat(&Failure::new("调用次数超出限制")),
            (PaymentRequired, false)
        );
        assert_eq!(
            cat(&Failure::new("每分钟调用次数超出限制")),
            (RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::new("Request limit (100 per day) exceeded.")),
            (PaymentRequired, false)
        );
        // Words of access, set-up, safety and tool pairing.
        assert_eq!(
            cat(&Failure::http(
                400,
                "Your organization must be verified to use this model."
            )),
            (Forbidden, false)
        );
        assert_eq!(
            cat(&Failure::new("the model name is invalid")),
            (NotFound, false)
        );
        assert_eq!(
            cat(&Failure::new("No model is loaded")),
            (Configuration, false)
        );
        assert_eq!(
            cat(&Failure::new("invalid azure config")),
            (Configuration, false)
        );
        assert_eq!(
            cat(&Failure::http(502, "<pre>Cannot POST /v1/chat</pre>")),
            (Configuration, false)
        );
        assert_eq!(
            cat(&Failure::new(
                "Cannot read properties of undefined (reading 'x')"
            )),
            (Programming, false)
        );
        assert_eq!(
            cat(&Failure::new(
                "No object generated: response did not match schema."
            )),
            (Validation, false)
        );
        assert_eq!(
            cat(&Failure::new("Output was blocked by the safety filter")),
            (ContentFiltered, false)
        );
        assert_eq!(
            cat(&Failure::http(
                400,
                "No tool output found for function call call_1."
            )),
            (OrphanToolCalls, false)
        );
        assert_eq!(
            cat(&Failure::http(400, "prompt exceeds the model limit")),
            (ContextOverflow, false)
        );
        // A generic server_error whose words name an overload; one-api's relayed status.
        assert_eq!(
            cat(&Failure::new("").with_body(
                r#"{"error":{"message":"The engine is overloaded","type":"server_error"}}"#
            )),
            (Overloaded, true)
        );
        assert_eq!(
            cat(&Failure::new("").with_body(r#"{"error":{"message":"x","type":"upstream_error","param":"401","code":"bad_response_status_code"}}"#)),
            (Unauthorized, false)
        );
        // JavaScript's AbortError is the caller's own cancel.
        assert_eq!(
            cat(&Failure::new("This operation was aborted").with_class(["AbortError"])),
            (Cancelled, false)
        );
    }

    #[test]
    fn batch14_families() {
        use Category::*;
        // Billing boilerplate around a per-minute quota is a throttle; a zero limit is not.
        let per_minute = "You exceeded your current quota, please check your plan and billing \
            details. quotaId: GenerateRequestsPerMinutePerProjectPerModel-FreeTier";
        assert_eq!(cat(&Failure::new(per_minute)), (RateLimited, true));
        assert_eq!(
            cat(&Failure::new(
                "You exceeded your current quota. Please retry in 9.5s."
            )),
            (RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::new(
                "You exceeded your current quota, limit: 0. Please retry in 9.5s."
            )),
            (PaymentRequired, false)
        );
        assert_eq!(
            cat(&Failure::new("You exceeded your current quota")),
            (PaymentRequired, false)
        );
        // Words that only state a wait: half a day or more is a day's quota; a status's own
        // long hint (Azure's 86400 s) stays the status's.
        assert_eq!(
            cat(&Failure::new("Pool exhausted. Please wait 50000s.")),
            (PaymentRequired, false)
        );
        assert_eq!(
            cat(&Failure::new("Pool exhausted. Please wait 50s.")),
            (RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::http(429, "Please retry after 86400 seconds.")),
            (RateLimited, true)
        );
        // undici's TypeError: the first line names it, the printed cause decides.
        let undici = |m: &str| cat(&Failure::new(m).with_class(["TypeError"]));
        assert_eq!(
            undici("fetch failed\n  [cause]: ConnectTimeoutError: Connect Timeout Error"),
            (Timeout, true)
        );
        assert_eq!(
            undici("terminated\n  [cause]: SocketError: other side closed"),
            (Connection, true)
        );
        assert_eq!(undici("fetch failed"), (Connection, true));
        assert_eq!(
            undici("Cannot read properties of undefined\nfetch failed"),
            (Programming, false)
        );
        // gRPC names heading a message; a status before "status code".
        assert_eq!(
            cat(&Failure::new(
                "DEADLINE_EXCEEDED: deadline exceeded after 9.9s"
            )),
            (Timeout, true)
        );
        assert_eq!(
            cat(&Failure::new("PERMISSION_DENIED: caller lacks access")),
            (Forbidden, false)
        );
        assert_eq!(
            cat(&Failure::new("Request failed: 401 status code (no body)")),
            (Unauthorized, false)
        );
        // aiohttp's parser code is no status; its ClientResponseError's is.
        assert_eq!(
            cat(&Failure::new(
                "Response payload is not completed: <ContentLengthError: 400, message='Not enough data'>"
            )),
            (Connection, true)
        );
        // reqwest's decode error: serde's words are a wrong shape, none a cut body.
        assert_eq!(
            cat(&Failure::new(
                "error decoding response body: missing field `choices` at line 1 column 9"
            )),
            (InvalidResponse, false)
        );
        assert_eq!(
            cat(&Failure::new("stream error: error decoding response body")),
            (StreamInterrupted, true)
        );
        // A relay's bare body with a known transient type is that body's failure.
        let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#;
        assert_eq!(cat(&Failure::new("").with_body(body)), (Overloaded, true));
    }

    /// Batch 21a's families, in wordings of other sources than the corpus's cases.
    #[test]
    fn batch21a_families() {
        use Category::*;
        // Cloudflare Workers AI's code at the head of the binding's words beats the catch-all
        // code of the envelope around it (developers.cloudflare.com/workers-ai/platform/errors).
        let wrap =
            |code: &str, msg: &str| format!(r#"{{"error":{{"message":"{msg}","code":"{code}"}}}}"#);
        let f = Failure::new("").with_body(wrap(
            "internal_error",
            "3036: You have used up your daily free allocation of 10,000 neurons.",
        ));
        assert_eq!(cat(&f), (PaymentRequired, false));
        let f = Failure::new("").with_body(wrap("invalid_prompt", "AiError: Request was aborted"));
        assert_eq!(cat(&f), (Timeout, true));
        let f = Failure::http(429, "3040: No more data centers to forward the request to");
        assert_eq!(cat(&f), (Overloaded, true));
        // A numeric head that is no code of the table stays words.
        let f = Failure::new("").with_body(wrap("invalid_prompt", "Invalid prompt: flagged"));
        assert_eq!(cat(&f).0, ContentFiltered);

        // A throttle in words: apps' 429 wordings "The data provider is temporarily limiting
        // requests.", "GitHub is temporarily limiting requests. Sync is paused."
        for m in [
            "The data provider is temporarily limiting requests.",
            "GitHub is temporarily limiting requests. Sync is paused.",
            "The service is restricting requests from your client, please slow down",
        ] {
            assert_eq!(cat(&Failure::new(m)), (RateLimited, true), "{m}");
        }

        // A gateway's upstream down: Go reverse proxies' "goaccess ws upstream unavailable"
        // (502), a voice relay's 503 "voice upstream unavailable", statusless alike.
        assert_eq!(
            cat(&Failure::new("voice upstream unavailable")),
            (ServerError, true)
        );
        assert_eq!(
            cat(&Failure::http(502, "goaccess ws upstream unavailable")),
            (ServerError, true)
        );
        assert_eq!(
            cat(&Failure::new(
                "error: upstream is not available, retry later"
            )),
            (ServerError, true)
        );

        // A key never set, under an SDK's authentication class with no status (legacy
        // openai-python's AuthenticationError "No API key provided. You can set your API key in
        // code using 'openai.api_key = <API-KEY>'"): set-up. A server's 401 refusing a request
        // without a key stays unauthorized.
        let f = Failure::new("No API key provided. You can set your API key in code using 'openai.api_key = <API-KEY>', or you can set the environment variable OPENAI_API_KEY=<API-KEY>).")
            .with_class(["openai.error.AuthenticationError", "openai.error.OpenAIError", "Exception"]);
        assert_eq!(cat(&f), (Configuration, false));
        let f = Failure::new("Incorrect API key provided: sk-abc.")
            .with_class(["openai.AuthenticationError", "Exception"]);
        assert_eq!(cat(&f), (Unauthorized, false));
        let f = Failure::new("Invalid or missing API key")
            .with_class(["anthropic.AuthenticationError", "Exception"]);
        assert_eq!(cat(&f), (Unauthorized, false));
        assert_eq!(
            cat(&Failure::new("启动失败：缺少环境变量 OPENAI_API_KEY")),
            (Configuration, false)
        );

        // A relay's saturation words over a rate code under its 429 (one-api's Midjourney relay:
        // "当前分组负载已饱和，请稍后再试，或升级账户以提升服务质量。").
        let body = r#"{"error":{"message":"当前分组负载已饱和，请稍后再试，或升级账户以提升服务质量。","type":"one_api_error","code":"rate_limit_exceeded"}}"#;
        let f = Failure::http(429, "").with_body(body);
        assert_eq!(cat(&f), (Overloaded, true));
        // A plain 429 rate limit with a rate code stays one.
        let body = r#"{"error":{"message":"Rate limit reached for requests","code":"rate_limit_exceeded"}}"#;
        assert_eq!(
            cat(&Failure::http(429, "").with_body(body)),
            (RateLimited, true)
        );
    }

    /// Batch 11's families.
    #[test]
    fn batch11_families() {
        let f = Failure::new("Error: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.");
        assert_eq!(cat(&f), (Category::BadRequest, false));
        // Azure's missing deployment invites a retry in words; it is still not found.
        let f = Failure::new("Error: The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.");
        assert_eq!(cat(&f), (Category::NotFound, false));
    }

    /// Batch 10's families.
    #[test]
    fn batch10_families() {
        // Envoy's reset before headers: the proxy's connection to its upstream failed.
        let f = Failure::new("upstream connect error or disconnect/reset before headers. reset reason: connection termination");
        assert_eq!(cat(&f), (Category::Connection, true));
        // Cloudflare's 524 stays a server error (CONTRACT §2: any other 5xx, proxy pages).
        assert_eq!(
            cat(&Failure::http(524, "A timeout occurred")),
            (Category::ServerError, true)
        );
    }

    /// Batch 9's families.
    #[test]
    fn batch9_families() {
        // A phrase the terminal wrapped and padded still reads as the phrase.
        let f = Failure::new("API Error: 400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"Output blocked by content\n     filtering policy\"},\"request_id\":null}");
        assert_eq!(cat(&f), (Category::ContentFiltered, false));
        // Gemini's safety blocks in clients' words, and a Chinese interception.
        for m in [
            "Blocked by safety settings, consider adjusting `block_threshold`",
            "Message is being blocked for reason: SAFETY",
            "Check the `response.prompt_feedback` to see if the prompt was blocked.",
            "抱歉，您的请求包含不安全内容，已被系统拦截。",
        ] {
            assert_eq!(
                cat(&Failure::new(m)),
                (Category::ContentFiltered, false),
                "{m}"
            );
        }
        // Go's context deadline, however worded.
        assert_eq!(
            cat(&Failure::new("Context deadline reached")),
            (Category::Timeout, true)
        );
    }

    /// Batch 8's families.
    #[test]
    fn batch8_families() {
        // iFlytek Spark's 11200 by name, in any rendering.
        let f = Failure::new("syncOutput: 11200:AppIdNoAuthError:(21:00:00.909) tokens.total");
        assert_eq!(cat(&f), (Category::Forbidden, false));
        assert_eq!(
            cat(&Failure::new(
                "授权错误：该appId没有相关功能的授权或者业务量超过限制"
            ))
            .0,
            Category::Forbidden
        );
        // DashScope's Throttling words.
        assert_eq!(
            cat(&Failure::new(
                "API Error: You exceeded your current requests list."
            )),
            (Category::RateLimited, true)
        );
        // Dio's status sentence.
        let f = Failure::new("DioException [bad response]: This exception was thrown because the response has a status code of 404 and RequestOptions.validateStatus was configured to throw for this status code.");
        assert_eq!(cat(&f).0, Category::NotFound);
        assert_eq!(
            cat(&Failure::new("Api key invalid.")).0,
            Category::Unauthorized
        );
    }

    /// Batch 7's families.
    #[test]
    fn batch7_families() {
        // A 403 whose words name a rate limit is one; a plain 403 stays forbidden.
        let f = Failure::http(
            403,
            "Rate limit exceeded. Please wait and try again, or upgrade your API plan.",
        );
        assert_eq!(cat(&f), (Category::RateLimited, true));
        assert_eq!(cat(&Failure::http(403, "Forbidden")).0, Category::Forbidden);
        // A plan's billing-cycle quota under a permission error.
        let f = Failure::new(
            r#"API Error: 403 {"error":{"type":"permission_error","message":"You've reached your usage limit for this billing cycle."},"type":"error"}"#,
        );
        assert_eq!(cat(&f), (Category::PaymentRequired, false));
        // Statuses agents and ws print in words.
        assert_eq!(
            cat(&Failure::new("✕ [API Error: 429 status code (no body)]")),
            (Category::RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::new("Unexpected server response: 403.")).0,
            Category::Forbidden
        );
        // python-websockets failing the connection with an abnormal close.
        let f = Failure::new(
            "websockets.protocol.fail_connection: Failing the WebSocket connection: 1006",
        );
        assert_eq!(cat(&f), (Category::Connection, true));
        // Google's INVALID_ARGUMENT words, as a Gemini Live close reason.
        assert_eq!(
            cat(&Failure::new("1007 Request contains an invalid argument")).0,
            Category::BadRequest
        );
    }

    /// Batch 6's families.
    #[test]
    fn batch6_families() {
        // Codex's stream cut names the cut first, whatever the cause's words.
        let f = Failure::new("stream disconnected before completion: An error occurred while processing your request. You can retry your request.");
        assert_eq!(cat(&f), (Category::StreamInterrupted, true));
        // reqwest never sent the request: a connection failure.
        let f = Failure::new("stream disconnected before completion: error sending request for url (https://example.test/v1/responses)");
        assert_eq!(cat(&f), (Category::Connection, true));
        // A gateway's 504 is a server error (CONTRACT §2: 504 and proxy pages), whatever
        // its words say of the upstream's timeout.
        let f = Failure::http(504, "litellm.Timeout: APITimeoutError - Request timed out.");
        assert_eq!(cat(&f), (Category::ServerError, true));
        // Tencent Cloud's per-second frequency cap, in Chinese.
        let f = Failure::new("code:RequestLimitExceeded message:您当前每秒请求 `6` 次，超过了每秒频率上限 `5`，请稍后重试。");
        assert_eq!(cat(&f), (Category::RateLimited, true));
    }

    /// Batch 5's families (first-sight failures, generalised).
    #[test]
    fn batch5_families() {
        // A compound code's words: an ErrorInfo reason naming a credits balance under a 429.
        let mut f = Failure::http(429, "");
        f.body = Some(r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INSUFFICIENT_G1_CREDITS_BALANCE"}]}}"#.into());
        assert_eq!(cat(&f), (Category::PaymentRequired, false));
        // ... but the words are whole: a load balancer is no balance.
        assert!(tables::code_row("load_balancer_error").is_none());
        // A message that is only a known code.
        let f = Failure::http(400, "exceed_context_size_error");
        assert_eq!(cat(&f), (Category::ContextOverflow, false));
        // Anthropic's envelope quoted without a status or a stream: the request's own fault.
        let f = Failure::new(
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620"}}"#,
        );
        assert_eq!(cat(&f), (Category::BadRequest, false));
        // ... and inside a stream, the stream's protocol failing.
        let f = Failure::new(
            r#"stream error: {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#,
        );
        assert_eq!(cat(&f), (Category::InvalidResponse, false));
        // A model that does not exist; a tool that does not exist is the request's.
        assert_eq!(
            cat(&Failure::new("The model: `gpt-4` does not exist")),
            (Category::NotFound, false)
        );
        assert_eq!(
            cat(&Failure::http(400, "requested tool does not exist")),
            (Category::BadRequest, false)
        );
        // A plan's usage limit under a 429 (MiniMax 2056).
        assert_eq!(
            cat(&Failure::new(
                "API Error: Request rejected (429) · usage limit exceeded (2056)"
            )),
            (Category::PaymentRequired, false)
        );
        // Only an instruction to wait: a throttle, with its wait.
        let r = c(&Failure::new(
            "Token error: All accounts are currently limited. Please wait 8s.",
        ));
        assert_eq!(
            (r.category, r.transient, r.retry_after),
            (Category::RateLimited, true, Some(8.0))
        );
    }

    const OAI_429: &[&str] = &[
        "openai.RateLimitError",
        "openai.APIStatusError",
        "openai.APIError",
        "Exception",
    ];

    #[test]
    fn gemini_retry_info_in_the_body_is_the_wait() {
        let body = r#"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"36s"}]}}"#;
        let r = c(&Failure::http(429, "429 RESOURCE_EXHAUSTED").with_body(body));
        assert_eq!(r.category, Category::RateLimited);
        assert_eq!(r.retry_after, Some(36.0));
        assert_eq!(r.retry_after_source, Some(RetryAfterSource::Body));
        // A header still wins.
        let r = c(&Failure::http(429, "x")
            .with_body(body)
            .with_header("retry-after", "7"));
        assert_eq!(
            (r.retry_after, r.retry_after_source),
            (Some(7.0), Some(RetryAfterSource::Header))
        );
    }

    #[test]
    fn openai_wait_in_words() {
        let msg = "Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 6.5s. Visit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}";
        let mut f = Failure::http(429, msg);
        f.error_class = OAI_429.iter().map(|s| s.to_string()).collect();
        let r = c(&f);
        assert_eq!(r.category, Category::RateLimited);
        assert_eq!(r.retry_after, Some(6.5));
        assert_eq!(r.retry_after_source, Some(RetryAfterSource::Message));
    }

    #[test]
    fn chinese_wait_in_words() {
        let r = c(&Failure::http(429, "请求过于频繁，请20秒后重试"));
        assert_eq!(r.category, Category::RateLimited);
        assert_eq!(r.retry_after, Some(20.0));
        // Without a status the words still say what it is.
        // An instruction to wait and nothing else names a throttle (batch 5: "All accounts are
        // currently limited. Please wait 8s.").
        let r = c(&Failure::new("请20秒后重试"));
        assert_eq!(
            (r.category, r.retry_after),
            (Category::RateLimited, Some(20.0))
        );
        // A client's own schedule is no instruction.
        let r = c(&Failure::new("Something failed. Retrying in 5 seconds"));
        assert_eq!((r.category, r.retry_after), (Category::Unknown, None));
        let r = c(&Failure::new("访问过于频繁，请20秒后重试"));
        assert_eq!(
            (r.category, r.retry_after),
            (Category::RateLimited, Some(20.0))
        );
    }

    #[test]
    fn a_wait_is_only_reported_for_what_is_retried() {
        let r = c(&Failure::http(
            402,
            "Insufficient balance. Please try again in 30s",
        ));
        assert_eq!(
            (r.category, r.retry_after),
            (Category::PaymentRequired, None)
        );
    }

    #[test]
    fn quota_windows() {
        let day = r#"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"36s"}]}}"#;
        let r = c(&Failure::http(429, "").with_body(day));
        assert_eq!(
            (r.category, r.transient),
            (Category::PaymentRequired, false)
        );
        assert_eq!(r.retry_after, None);
        for (text, want) in [
            (
                "Rate limit reached on requests per day (RPD): Limit 200",
                Category::PaymentRequired,
            ),
            (
                "Rate limit reached on requests per min (RPM): Limit 3",
                Category::RateLimited,
            ),
            ("该 API 已达今日调用次数限额", Category::PaymentRequired),
            (
                "您当前使用该API的频率过高，请降低频率",
                Category::RateLimited,
            ),
            (
                "You have reached your weekly/monthly limit",
                Category::PaymentRequired,
            ),
        ] {
            assert_eq!(c(&Failure::http(429, text)).category, want, "{text}");
        }
        // A CamelCase word, not a fragment: "Perdayton" names no window.
        assert!(!text::long_window_in_ids("quotaId: PerdaytonRequests"));
        assert!(text::long_window_in_ids(
            "Gemini25ProRequestsPerDayPerUserPerTier"
        ));
        assert!(!text::long_window_in_ids("SUPERDAY"));
    }

    #[test]
    fn providers_own_words_and_codes() {
        let zhipu = r#"{"error":{"code":"1113","message":"余额不足或无可用资源包,请充值。"}}"#;
        assert_eq!(
            cat(&Failure::http(429, "").with_body(zhipu)),
            (Category::PaymentRequired, false)
        );
        assert_eq!(
            cat(&Failure::http(429, "429 余额不足或无可用资源包,请充值。")),
            (Category::PaymentRequired, false)
        );
        let minimax = r#"{"base_resp":{"status_code":1008,"status_msg":"insufficient balance"}}"#;
        assert_eq!(
            cat(&Failure::http(200, "").with_body(minimax)).0,
            Category::PaymentRequired
        );
        let minimax_rpm = r#"{"base_resp":{"status_code":1002,"status_msg":"rate limit"}}"#;
        assert_eq!(
            cat(&Failure::new("").with_body(minimax_rpm)),
            (Category::RateLimited, true)
        );
        let baidu = r#"{"error_code":18,"error_msg":"Open api qps request limit reached"}"#;
        let r = c(&Failure::new("").with_body(baidu));
        assert_eq!((r.category, r.status), (Category::RateLimited, None));
        let cloudflare = r#"{"errors":[{"message":"AiError: 3036","code":3036}],"success":false}"#;
        assert_eq!(
            cat(&Failure::http(429, "").with_body(cloudflare)),
            (Category::PaymentRequired, false)
        );
        for (text, want) in [
            ("Content Exists Risk", Category::ContentFiltered),
            ("<400> InternalError.Algo.DataInspectionFailed: Input text data may contain inappropriate content.", Category::ContentFiltered),
            ("Access denied, please make sure your account is in good standing.", Category::PaymentRequired),
            ("访问过于频繁，请稍候再试", Category::RateLimited),
            ("并发超限", Category::RateLimited),
            ("Open api qps request limit reached", Category::RateLimited),
            ("50 per 1 minute", Category::RateLimited),
            ("request reached organization max RPM: 3, please try again after 1 seconds", Category::RateLimited),
            ("slot unavailable", Category::Overloaded),
            ("Worker local total request limit reached (71/32)", Category::RateLimited),
            ("Enqueued token limit reached for gpt-4o in organization x", Category::RateLimited),
            ("系统繁忙，请稍后再试", Category::Overloaded),
        ] {
            assert_eq!(c(&Failure::new(text)).category, want, "{text}");
        }
    }

    #[test]
    fn an_envelope_speaks_for_itself_not_for_what_it_quotes() {
        let msg = "Error code: 400 - {'error': {'message': 'Invalid tool result: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}', 'type': 'invalid_request_error', 'param': None, 'code': None}}";
        let mut f = Failure::new(msg);
        f.error_class = vec!["openai.BadRequestError".into(), "openai.APIError".into()];
        assert_eq!(cat(&f), (Category::BadRequest, false));
        assert_eq!(cat(&Failure::new(msg)), (Category::BadRequest, false));
        // A 400 that mentions tool_result content is no pairing error.
        assert_eq!(
            c(&Failure::http(
                400,
                "messages.2.content.0: tool_result content invalid"
            ))
            .category,
            Category::BadRequest
        );
        assert_eq!(
            c(&Failure::http(
                400,
                "Not the same number of function calls and responses"
            ))
            .category,
            Category::OrphanToolCalls
        );
    }

    #[test]
    fn wrappers_around_stated_client_errors() {
        assert_eq!(
            cat(&Failure::http(
                500,
                "unable to parse response: status code 400, body: {\"error\": \"bad\"}"
            )),
            (Category::BadRequest, false)
        );
        assert_eq!(
            cat(&Failure::http(
                500,
                "litellm.BadRequestError: Invalid 'input[261].call_id': string too long"
            )),
            (Category::BadRequest, false)
        );
        assert_eq!(
            cat(&Failure::http(503, "OPENAI_API_KEY is not set")),
            (Category::Configuration, false)
        );
        let mut f = Failure::new("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed certificate in certificate chain");
        f.error_class = vec!["openai.InternalServerError".into()];
        assert_eq!(cat(&f), (Category::Configuration, false));
        // A 502 whose quoted upstream body says code 400 stays the gateway's 502.
        assert!(c(&Failure::http(502, r#"Upstream error: {"code": 400}"#)).transient);
    }

    #[test]
    fn transport_texts_of_other_clients() {
        for (text, want) in [
            ("request to https://api.openai.com/v1/chat/completions failed, reason: socket hang up", Category::Connection),
            ("terminated", Category::Connection),
            ("getaddrinfo EAI_AGAIN api.openai.com", Category::Connection),
            ("getaddrinfo ENOTFOUND api.opeani.com", Category::Configuration),
            ("Post \"https://api.x.ai/v1/chat\": dial tcp: lookup api.x.ai: no such host", Category::Configuration),
            ("http2: server sent GOAWAY and closed the connection; LastStreamID=1999", Category::Connection),
            ("Post \"https://api.openai.com/v1/responses\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", Category::Timeout),
            ("read tcp 10.0.0.2:5555->1.2.3.4:443: read: connection reset by peer", Category::Connection),
            ("An error occurred while sending the request.", Category::Connection),
            ("'<' is an invalid start of a value. Path: $ | LineNumber: 0 | BytePositionInLine: 0.", Category::InvalidResponse),
            ("WebSocket closed 1006", Category::Connection),
            ("received 1011 (internal error) ; then sent 1011 (internal error)", Category::ServerError),
            ("sent 1011 (internal error) keepalive ping timeout; no close frame received", Category::Connection),
            ("rpc error: code = Unavailable desc = connection error", Category::ServerError),
            ("rpc error: code = PermissionDenied desc = denied", Category::Forbidden),
            ("StatusCode.UNAUTHENTICATED", Category::Unauthorized),
            ("Stream ended without finish_reason", Category::StreamInterrupted),
            ("Provider finish_reason: error", Category::StreamInterrupted),
            ("The output parser failed to parse the output including retries.", Category::Validation),
        ] {
            assert_eq!(c(&Failure::new(text)).category, want, "{text}");
        }
        let mut f = Failure::new("getaddrinfo ENOTFOUND api.opeani.com");
        f.error_class = vec!["openai.APIConnectionError".into()];
        assert_eq!(cat(&f), (Category::Configuration, false));
        f.message = "getaddrinfo EAI_AGAIN api.openai.com".into();
        assert_eq!(cat(&f), (Category::Connection, true));
    }

    #[test]
    fn words_not_fragments() {
        for text in [
            "rpms",
            "tpms",
            "deadlines",
            "daily-build ok",
            "terminated early by the user",
        ] {
            let r = c(&Failure::new(text));
            assert!(
                !r.transient || text == "terminated early by the user",
                "{text}: {r:?}"
            );
        }
        assert_eq!(
            c(&Failure::http(429, "dailyrate exceeded")).category,
            Category::RateLimited
        );
    }
}

/// Batch 19's families, each proven on phrasings from the servers' and SDKs' own sources (not
/// the corpus case that taught it).
#[cfg(test)]
mod batch19 {
    use super::*;
    use Category::*;

    fn cat(f: &Failure) -> (Category, bool) {
        let r = classify_at(f, SystemTime::UNIX_EPOCH);
        (r.category, r.transient)
    }

    fn text(m: &str) -> (Category, bool) {
        cat(&Failure::new(m))
    }

    /// An inference engine that died, in any of its compound names (`text::engine_down`).
    #[test]
    fn a_dead_engine_in_any_name() {
        for m in [
            // vLLM's MQ client (vllm/engine/multiprocessing/client.py).
            "RuntimeError('Engine process (pid 16470) died.')",
            // vLLM V0's AsyncEngineDeadError text.
            "Background loop is stopped.",
            // A V1 engine named as servers log it.
            "AsyncLLM: EngineCore encountered an error while stepping",
            // Ollama's runner (llm/server.go).
            "model runner has unexpectedly stopped, this may be due to resource limitations or an internal error, check ollama server logs for details",
            "The scheduler has crashed",
            // TGI's launcher (launcher/src/main.rs).
            "Shard process was signaled to shutdown with signal 9",
            "Shard 1 crashed",
        ] {
            assert_eq!(text(m), (ServerError, true), "{m}");
        }
        // A wrapper's connection class around a 5xx the server answered with its runner's death.
        let f = Failure::http(
            500,
            "litellm.APIConnectionError: OllamaException - model runner has unexpectedly stopped",
        )
        .with_class([
            "litellm.exceptions.APIConnectionError",
            "openai.APIConnectionError",
        ]);
        assert_eq!(cat(&f), (ServerError, true));
        // The parts alone, or a part that is well, say nothing of a death.
        assert!(!text::engine_down("the search engine returned no results"));
        assert!(!text::engine_down("engine: vllm, model: qwen"));
    }

    /// GPU memory and a missed health probe: a loaded server's passing state.
    #[test]
    fn gpu_memory_and_health() {
        for m in [
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.27 GiB. GPU 0 has a total capacity of 79.33 GiB",
            "HIP out of memory. Tried to allocate 2.00 GiB",
            "MPS backend out of memory (MPS allocated: 17.8 GB, other allocations: 1.2 GB)",
            "ggml_cuda_init: cudaMalloc failed: out of memory",
            "Worker crashed: CUDA out of memory",
        ] {
            assert_eq!(text(m), (ServerError, true), "{m}");
        }
        assert_eq!(
            text("Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: 04:35:35"),
            (Overloaded, true)
        );
    }

    /// LM Studio's context words, and its crash at the context limit: never retried.
    #[test]
    fn local_context_overflow() {
        let m = "Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough.";
        assert_eq!(text(m), (ContextOverflow, false));
        assert_eq!(cat(&Failure::http(500, m)), (ContextOverflow, false));
        assert_eq!(
            text("The model has crashed without additional information. (Exit code: 18446744072635812000). Error Data: n/a, Additional Data: n/a"),
            (ContextOverflow, false)
        );
    }

    /// A model that will not load is set-up; a load that broke on a transport is not.
    #[test]
    fn a_model_that_will_not_load() {
        assert_eq!(
            text("Failed to load model \"qwen3-32b\""),
            (Configuration, false)
        );
        assert_eq!(
            text("llama_init_from_model: unable to load model"),
            (Configuration, false)
        );
        assert!(
            text("failed to load model: rpc error: code = Unavailable desc = connection refused").1
        );
    }

    /// An SDK's own words for an answer it could not deserialize, Display and Debug forms.
    #[test]
    fn sdk_deserialize_words() {
        for m in [
            "JSONDeserialize(Error(\"missing field `choices`\", line: 1, column: 120))",
            "reqwest::Error { kind: Decode, source: Error(\"expected value\", line: 1, column: 1) }",
            "failed to deserialize api response: unknown variant `content_filtered`, expected one of `stop`, `length`, `tool_calls`, `content_filter`, `function_call`",
            "Error: Reqwest(\"error decoding response body\")",
            // serde_json's Display for an empty answer (its bare "EOF" is no transport's).
            "serde_json::Error: EOF while parsing a value at line 1 column 0",
        ] {
            assert_eq!(text(m), (InvalidResponse, false), "{m}");
        }
        // The body that failed to parse does not outvote the SDK's words.
        let f = Failure::new("JSONDeserialize(Error(\"expected value\", line: 1, column: 1))")
            .with_body("404 page not found");
        assert_eq!(cat(&f), (InvalidResponse, false));
        // reqwest's decode error placed in a stream or the network is a cut body.
        for m in [
            "Stream error: error decoding response body",
            "network error: error decoding response body",
        ] {
            assert_eq!(text(m), (StreamInterrupted, true), "{m}");
        }
    }

    /// Refusals in the SDKs' and providers' own sentences.
    #[test]
    fn refusals_in_sentences() {
        for m in [
            "[GoogleGenerativeAI Error]: Text not available. Response was blocked due to SAFETY",
            "Candidate was blocked due to PROHIBITED_CONTENT: blocked by policy",
            "output new_sensitive (1027)",
        ] {
            assert_eq!(text(m), (ContentFiltered, false), "{m}");
        }
        assert_eq!(
            cat(&Failure::http(500, "API Error: 500 output new_sensitive")),
            (ContentFiltered, false)
        );
        // OpenRouter's account privacy setting under a 502 is a setting.
        assert_eq!(
            cat(&Failure::http(
                502,
                "Free model training violation (account settings): 3 endpoints excluded"
            )),
            (Configuration, false)
        );
    }

    /// The JS SDKs' own abort is the caller's cancel.
    #[test]
    fn sdk_user_abort() {
        let f = Failure::new("Request was aborted.")
            .with_class(["anthropic.APIUserAbortError", "anthropic.APIError"]);
        assert_eq!(cat(&f).0, Cancelled);
    }

    /// A per-day quota in words is a bill; a value restricted to a list is the request's.
    #[test]
    fn day_quota_and_choices() {
        assert_eq!(
            cat(&Failure::http(
                429,
                "Quota exceeded for quota metric 'Generate Content API requests' and limit 'GenerateContent request limit per day' of service 'generativelanguage.googleapis.com'"
            )),
            (PaymentRequired, false)
        );
        assert_eq!(
            text("response_format.type must be either 'json_object' or 'json_schema'"),
            (BadRequest, false)
        );
    }
}

#[cfg(test)]
mod batch24 {
    //! Sibling strings of batch 24a's families, from the sources named at each rule.
    use super::*;
    use Category::*;

    fn cat(f: &Failure) -> (Category, bool) {
        let r = classify_at(f, SystemTime::UNIX_EPOCH);
        (r.category, r.transient)
    }

    fn chain(classes: &[&str], m: &str) -> Failure {
        let mut f = Failure::new(m);
        f.error_class = classes.iter().map(|c| c.to_string()).collect();
        f
    }

    /// A connection class around a quoted envelope that states its own 4xx: the answer came.
    #[test]
    fn a_quoted_client_error_under_a_connection_class_is_that_error() {
        let litellm = [
            "litellm.exceptions.APIConnectionError",
            "openai.APIConnectionError",
        ];
        // MiniMax's Anthropic-shaped envelope (http_code), through OpenRouter's raw too.
        let m = r#"litellm.APIConnectionError: MinimaxException - {"type":"error","error":{"type":"bad_request_error","message":"invalid params, tool call result does not follow tool call (2013)","http_code":"400"},"request_id":"05b1"}"#;
        assert_eq!(cat(&chain(&litellm, m)), (OrphanToolCalls, false));
        let m = r#"litellm.APIConnectionError: MinimaxException - {"type":"error","error":{"type":"authentication_error","message":"invalid api key (2049)","http_code":"401"}}"#;
        assert!(!cat(&chain(&litellm, m)).1);
        // A connection class with no answer quoted stays a connection; a quoted 5xx or 408
        // stays transient.
        assert_eq!(
            cat(&chain(
                &litellm,
                "litellm.APIConnectionError: Connection error."
            )),
            (Connection, true)
        );
        let m = r#"litellm.APIConnectionError: {"error":{"type":"api_error","message":"upstream","http_code":"503"}}"#;
        assert!(cat(&chain(&litellm, m)).1);
        let m = r#"litellm.APIConnectionError: {"error":{"type":"timeout","message":"slow","http_code":"408"}}"#;
        assert!(cat(&chain(&litellm, m)).1);
    }

    /// MiniMax's 2013 texts with no status, as apps log them (MiniMax-AI/MiniMax-M2#76, the
    /// bridge sources quoting it).
    #[test]
    fn minimax_2013_without_a_status() {
        assert_eq!(
            cat(&Failure::new("invalid params, tool result's tool id(call_function_0f058212kmr5_1) not found (2013)")),
            (OrphanToolCalls, false)
        );
        assert_eq!(
            cat(&Failure::new(
                "invalid params, tool call result does not follow tool call (2013)"
            )),
            (OrphanToolCalls, false)
        );
        // Under a relay's 500 the pairing is still the history's.
        assert_eq!(
            cat(&Failure::http(
                500,
                "upstream error: invalid params, tool result's tool id(call_a) not found (2013)"
            )),
            (OrphanToolCalls, false)
        );
        assert!(
            !cat(&Failure::new(
                "invalid params, invalid function arguments json string, tool_call_id: x (2013)"
            ))
            .1
        );
        assert_eq!(
            cat(&Failure::new(
                r#"invalid params, invalid thinking.type: "enabled" (allowed: adaptive, disabled) (2013)"#
            )),
            (BadRequest, false)
        );
    }

    /// MiniMax's code at the end of its status message, as clients print it with no envelope
    /// (platform.minimax.io/docs/api-reference/errorcode's messages).
    #[test]
    fn minimax_codes_at_the_end_of_the_text() {
        for (m, want) in [
            ("conn limit (1041)", RateLimited),
            ("rate growth limit (2045)", RateLimited),
            ("token limit (1039)", RateLimited),
            (
                "unknown error (1000) (request_id:05db5ded497bacba)",
                ServerError,
            ),
            ("You don't have access to this voice_id (2042)", Forbidden),
            ("invalid samples or voice_id (20132)", BadRequest),
            ("usage limit exceeded (2056)", PaymentRequired),
        ] {
            assert_eq!(cat(&Failure::new(m)), (want, want.is_transient()), "{m}");
        }
        // A number in parentheses elsewhere, or one MiniMax has no code for, is no code.
        assert_eq!(cat(&Failure::new("the model (1000) is ready")).0, Unknown);
        assert_eq!(cat(&Failure::new("something odd (1999)")).0, Unknown);
        // Multi-byte text before the code is cut safely.
        assert_eq!(
            cat(&Failure::new(format!(
                "{}conn limit (1041)",
                "é".repeat(150)
            ))),
            (RateLimited, true)
        );
    }

    /// Gson's and Moshi's decoder classes: an EOF under them is the reply ending under the
    /// parser (ChatGPT-Java-API#30), not a dropped socket.
    #[test]
    fn jvm_json_decoder_classes() {
        for class in [
            "com.google.gson.JsonSyntaxException",
            "com.google.gson.stream.MalformedJsonException",
            "com.squareup.moshi.JsonDataException",
        ] {
            let f = chain(
                &[class],
                "java.io.EOFException: End of input at line 1 column 2 path $.",
            );
            assert_eq!(cat(&f), (InvalidResponse, false), "{class}");
        }
        // The EOF alone, with no decoder named, is still the socket's.
        assert!(cat(&chain(&["java.io.EOFException"], "java.io.EOFException")).1);
    }

    /// An error raised on a 2xx that nothing names is the reply's (openai-python 0.x).
    #[test]
    fn an_error_on_a_success_status() {
        let f = Failure::http(
            200,
            "Invalid response object from API: '<html>' (HTTP response code was 200)",
        );
        assert_eq!(cat(&f), (InvalidResponse, false));
        // Words that name a nature still decide (a stream's overload inside a 200).
        let f = Failure::http(
            200,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert!(cat(&f).1);
    }

    /// A body that states its reset as data: a week away is a quota; a wait under a 403 is a
    /// throttle (CLIProxyAPI#1666; 9router#3510).
    #[test]
    fn resets_stated_as_data() {
        let week = r#"{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_in_seconds":604000}}"#;
        assert_eq!(
            cat(&Failure::http(429, week).with_body(week)),
            (PaymentRequired, false)
        );
        let minutes = r#"{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","resets_in_seconds":1200}}"#;
        let r = classify_at(
            &Failure::http(429, minutes).with_body(minutes),
            SystemTime::UNIX_EPOCH,
        );
        assert_eq!(
            (r.category, r.transient, r.retry_after),
            (RateLimited, true, Some(1200.0))
        );
        let queued = r#"{"code":"10605","message":"{\"isQueued\":false,\"queueType\":\"slow\",\"retryAfterSeconds\":20}"}"#;
        assert_eq!(cat(&Failure::http(403, queued)), (RateLimited, true));
        // A 403 with no such field stays a refusal.
        assert!(
            !cat(&Failure::http(
                403,
                r#"{"code":"10605","message":"forbidden"}"#
            ))
            .1
        );
    }

    /// A reply with only reasoning (llm_wiki#471) and its siblings.
    #[test]
    fn a_reasoning_only_reply() {
        for m in [
            "Model produced 512 characters of reasoning / chain-of-thought, but no actual response content.",
            "LLM returned only reasoning content",
            "Model returned reasoning but no content",
        ] {
            assert_eq!(cat(&Failure::new(m)), (InvalidResponse, false), "{m}");
        }
    }
}

#[cfg(test)]
mod batch25a_tests {
    use super::classify;
    use crate::category::Category::*;
    use crate::failure::Failure;

    /// (batch 25) A relay's `response.failed` typed as a request error whose words are a
    /// capacity refusal: the overload; a request error without such words stays the stream's
    /// protocol failing.
    #[test]
    fn capacity_typed_as_a_request_error_in_a_stream() {
        let event = |msg: &str| {
            Failure::http(200, msg).with_body(format!(
                "event: response.failed\ndata: {{\"type\":\"response.failed\",\"error\":{{\"type\":\"invalid_request_error\",\"message\":\"{msg}\"}}}}"
            ))
        };
        let c = classify(&event(
            "Selected model is at capacity. Please try a different model.",
        ));
        assert_eq!((c.category, c.transient), (Overloaded, true));
        let c = classify(&event("The model is overloaded right now."));
        assert_eq!((c.category, c.transient), (Overloaded, true));
        let c = classify(&event("Unsupported parameter: 'temperature'."));
        assert!(!c.transient);
    }
}

#[cfg(test)]
mod batch29a_tests {
    use super::classify;
    use crate::category::Category::*;
    use crate::failure::Failure;

    /// (batch 29a) @google/genai's "exception {e} sending request" around undici's TypeError
    /// (google-gemini/gemini-cli#1549) is the transport's failure, not a bug in the app.
    #[test]
    fn genai_wrapped_undici_type_error_is_a_transport_failure() {
        for text in [
            "API Error: exception TypeError: fetch failed sending request",
            "exception TypeError: terminated sending request",
        ] {
            let c = classify(&Failure::new(text).with_class(["TypeError"]));
            assert_eq!((c.category, c.transient), (Connection, true), "{text}");
        }
        // A Node router's 502 in its own fetch's words; an upstream's words under a 502 keep it.
        let c = classify(&Failure::http(
            502,
            "HTTP 502: [gemini-cli/m] [502]: fetch failed (reset after 29s)",
        ));
        assert_eq!((c.category, c.transient), (Connection, true));
        let c = classify(&Failure::http(502, "{\"error\":{\"message\":\"upstream connect error or disconnect/reset before headers. reset reason: connection termination\"}}"));
        assert_eq!((c.category, c.transient), (ServerError, true));
        // A TypeError of the app's own, in the same wrapper, stays a programming error.
        let c = classify(
            &Failure::new(
                "exception TypeError: Cannot read properties of undefined sending request",
            )
            .with_class(["TypeError"]),
        );
        assert_eq!(c.category, Programming);
    }
}

#[cfg(test)]
mod batch33a_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 33a) A link's frame (Spring's "I/O error on", the AI SDK's "Cannot connect to
    /// API", Java's ConnectException/SocketException under hutool) yields to the timeout it
    /// prints or a later class names. Texts from threads in no corpus file. Near misses: the
    /// same frames around a refused or reset connection stay `connection`; a connect timeout
    /// inside urllib3's failed new connection stays `connection` (batch 30a).
    #[test]
    fn a_link_frame_yields_to_the_timeout_it_prints() {
        each(vec![
            // jianyuan1991/ragdemo#1.
            (
                Failure::new("org.springframework.web.client.ResourceAccessException: I/O error on POST request for \"http://localhost:11434/api/chat\": Read timed out")
                    .with_class(["org.springframework.web.client.ResourceAccessException"]),
                Timeout,
            ),
            // tmseidel/ai-git-bot#252 (the log runs the next line onto the cause).
            (
                Failure::new("I/O error on POST request for \"http://xxxx:8080/v1/chat/completions\": Read timed outorg.springframework.web.client.ResourceAccessException: I/O error on POST request for \"http://xxxx:8080/v1/chat/completions\": Read timed out at org.springframework.web.client.DefaultRestClient"),
                Timeout,
            ),
            // alibaba/spring-ai-alibaba#1323.
            (
                Failure::new("org.springframework.web.client.ResourceAccessException: I/O error on POST request for \"https://dashscope.aliyuncs.com/api/v1/services/aigc/multimodal-generation/generation\": timeout\nCaused by: java.net.SocketTimeoutException: timeout"),
                Timeout,
            ),
            // The frame with an empty cause and the timeout named only by a later class (the
            // shape of spring-ai-alibaba#3417, another URL).
            (
                Failure::new("I/O error on POST request for \"https://api.example.com/v1/chat/completions\": null")
                    .with_class([
                        "org.springframework.web.client.ResourceAccessException",
                        "io.netty.handler.timeout.ReadTimeoutException",
                    ]),
                Timeout,
            ),
            // jina-ai/node-DeepResearch#116; dyad-sh/dyad#352.
            (
                Failure::new("Failed after 3 attempts. Last error: Cannot connect to API: Connect Timeout Error (attempted addresses: 142.250.196.202:443, 142.250.66.74:443, timeout: 10000ms)"),
                Timeout,
            ),
            (
                Failure::new("Sorry, there was an error from the AI: Cannot connect to API: Connect Timeout Error (attempted addresses: 142.250.196.202:443, 142.250.77.10:443, timeout: 10000ms)"),
                Timeout,
            ),
            // dromara/fast-request#178.
            (
                Failure::new("cn.hutool.core.io.IORuntimeException: SocketTimeoutException: Connect timed out"),
                Timeout,
            ),
            // The JDK's connect timeout as Windows words it, under hutool's wrapper.
            (
                Failure::new("cn.hutool.core.io.IORuntimeException: ConnectException: Connection timed out: connect"),
                Timeout,
            ),
            // Near misses: anomalyco/opencode#41995; chinabugotech/hutool#2560;
            // liyupi/yucongming-java-sdk#19; a Spring frame around a reset; urllib3's wrapper.
            (
                Failure::new("Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9\nretrying in 13s - attempt #4"),
                Connection,
            ),
            (
                Failure::new("cn.hutool.core.io.IORuntimeException: ConnectException: Connection refused (Connection refused)"),
                Connection,
            ),
            (
                Failure::new("cn.hutool.core.io.IORuntimeException: SocketException: Connection reset"),
                Connection,
            ),
            // A socket closed for a missed keepalive ping under the frame is the socket's.
            (
                Failure::new("Cannot connect to API: sent 1011 (internal error) keepalive ping timeout; no close frame received"),
                Connection,
            ),
            (
                Failure::new("I/O error on POST request for \"https://api.openai.com/v1/chat/completions\": Connection reset"),
                Connection,
            ),
            (
                Failure::new("HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/chat/completions (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object>: Failed to establish a new connection: [Errno 60] Operation timed out'))"),
                Connection,
            ),
        ]);
    }

    /// (batch 33a) ERNIE's rules on a conversation's shape, a gateway's missing token in
    /// Chinese, Dio's browser transport failure, a router with no fallback left, a request
    /// ended before any chunk and a stream without its terminal event. Near misses: a missing
    /// token's neighbour "invalid token" stays a refused key; a stream cut after its answer
    /// began stays a cut; a quota word stays a payment.
    #[test]
    fn shapes_tokens_browsers_fallbacks_and_stream_ends() {
        each_with(vec![
            // gmjneko/qianfan-starter#25 (336006); songquanpeng/one-api#1332;
            // baidubce/bce-qianfan-sdk#576 is another 336003 ("function_call's name can't be
            // blank"), not a shape rule, and stays as the tables read it.
            (
                Failure::new("ErrorResponse(id=as-wvtx0jmnfp, logId=null, errorCode=336006, ebCode=null, errorMsg=the length of messages must be an odd number)"),
                BadRequest,
                false,
            ),
            (
                Failure::new("the role of message with odd index in the messages must be assistant"),
                BadRequest,
                false,
            ),
            // songquanpeng/one-api middleware/auth.go.
            (
                Failure::new("无权进行此操作，未登录且未提供 access token"),
                Configuration,
                false,
            ),
            (
                Failure::new("{\"error\":{\"message\":\"未提供令牌\",\"type\":\"one_api_error\"}}"),
                Configuration,
                false,
            ),
            // trevorwang/retrofit.dart#605 (Dio's web adapter under an app's log line).
            (
                Failure::new("Error connectionError, http://localhost:20001/api/v1/auth/authenticate_json, msg: The connection errored: The XMLHttpRequest onError callback was called. This typically indicates an error on the network layer. This indicates an error which most likely cannot be solved by the library."),
                Connection,
                true,
            ),
            // Streams that ended before their terminal event: OpenRouterTeam/benchmark-harness#28;
            // nicobailon/pi-subagents#2258.
            (
                Failure::new("Stream ended without a response.completed event"),
                StreamInterrupted,
                true,
            ),
            (
                Failure::new("Anthropic stream ended before message_stop"),
                StreamInterrupted,
                true,
            ),
            // Near misses.
            (Failure::new("无效的令牌"), Unauthorized, false),
            (
                Failure::new("stream error: stream disconnected before completion: Rate limit reached for gpt-4o"),
                RateLimited,
                true,
            ),
        ]);
    }
}
