//! `classify(failure)`: weighs the evidence in the contract's order (CONTRACT §2):
//! cancellation, `x-should-retry`, the status refined by the body, the exception class chain,
//! the transport hint, and last the message text.

pub mod body;
mod swar;
pub mod tables;
pub mod text;

use std::time::SystemTime;

use crate::category::{Category, Classification, Evidence, RetryAfterSource};
use crate::failure::{Failure, Transport};
use crate::retry_after;
use tables::ClassRule;

/// Only the head of a huge message or body is scanned for phrases.
const MAX_SCAN: usize = 64 * 1024;

/// Classifies one failure. Total and deterministic (the wall clock only enters through HTTP-date
/// and timestamp headers; use [`classify_at`] to pin it).
pub fn classify(failure: &Failure) -> Classification {
    classify_at(failure, SystemTime::now())
}

/// [`classify`] with an explicit "now" for date-valued headers.
pub fn classify_at(failure: &Failure, now: SystemTime) -> Classification {
    let headers = HeaderFacts::of(failure);
    // The provider's error is read in place (a `ProviderError` is large enough for moves and
    // even its initialisation to cost), and only made when there is something to read.
    let mut slot;
    let provider = if failure.body.is_some() || headers.amzn_error_type.is_some() {
        slot = body::ProviderError::default();
        provider_error(failure, &headers, &mut slot)
    } else {
        None
    };
    let classes = ClassFacts::of(&failure.error_class);
    let api_error = classes.api_error;
    let (category, evidence) = decide(failure, provider, &classes);

    let mut transient = category.is_transient();
    if category != Category::Cancelled {
        if let Some(explicit) = headers.should_retry {
            transient = explicit;
        }
    }

    let (retry_after, retry_after_source) = match retry_after::from_headers(&failure.headers, now) {
        Some((secs, RetryAfterSource::ResetHint)) if category != Category::RateLimited => {
            let _ = secs; // reset hints only speak about rate limits
            (None, None)
        }
        Some((secs, src)) => (Some(secs), Some(src)),
        None => (None, None),
    };

    let status = failure
        .status
        .or_else(|| provider.and_then(|p| p.numeric_code));
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

/// The provider's error from the body, with AWS's header code added, read into `slot` (a
/// default one).
fn provider_error<'a, 's>(
    f: &'a Failure,
    headers: &HeaderFacts<'a>,
    slot: &'s mut body::ProviderError<'a>,
) -> Option<&'s body::ProviderError<'a>> {
    let mut found = f.body.as_deref().is_some_and(|b| body::parse_into(b, slot));
    if let Some(v) = headers.amzn_error_type {
        body::push_code_str(slot, v);
        slot.has_error = true;
        found = true;
    }
    found.then_some(&*slot)
}

fn decide(
    f: &Failure,
    provider: Option<&body::ProviderError<'_>>,
    classes: &ClassFacts,
) -> (Category, Evidence) {
    // 1. Cancellation wins over everything: it is re-raised untouched.
    if let Some((Category::Cancelled, _)) = classes.category {
        return (Category::Cancelled, Evidence::Cancellation);
    }

    // Lazily built lower-cased text of the message and the body's message (or raw body).
    let hay = Hay::new(f, provider);

    // 2. (x-should-retry only flips `transient`; see classify_at.)
    // 3. The status, refined by the provider's code and the message.
    let in_stream = matches!(
        f.transport,
        Some(Transport::StreamTransient | Transport::StreamParse)
    );
    match f.status {
        Some(s) if (200..300).contains(&s) => {
            if let Some(c) = provider
                .and_then(code_category)
                .filter(|c| *c == Category::ContentFiltered)
            {
                return (c, Evidence::Body);
            }
            if let Some(c) = sse_category(provider) {
                return (c, Evidence::Body);
            }
        }
        Some(s) if (400..=599).contains(&s) => {
            return (refine_status(s, provider, &hay), Evidence::Status);
        }
        _ => {}
    }
    if in_stream {
        if let Some(c) = sse_category(provider) {
            return (c, Evidence::Body);
        }
    }
    // A body without a status (a wrapped exception): its code or numeric code decides.
    if f.status.is_none() {
        if let Some(p) = provider {
            if let Some(c) = code_category(p) {
                return (c, Evidence::Body);
            }
            if let Some(n) = p.numeric_code.filter(|n| (400..=599).contains(n)) {
                return (refine_status(n, provider, &hay), Evidence::Body);
            }
        }
    }

    // 4. The exception class chain, wrappers looked through (the binding concatenates chains).
    if let Some((c, network_or_config)) = classes.category {
        if network_or_config {
            return (network_or_configuration(hay.get()), Evidence::ErrorClass);
        }
        // A generic client error class ("RubyLLM::BadRequestError" without a status) is
        // sharpened by the message like a 400 would be.
        return (
            refine_by_phrase(c, text::permanent().first(hay.get())),
            Evidence::ErrorClass,
        );
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
    if let Some(c) = message_category(f, hay.get()) {
        return (c, Evidence::Message);
    }
    (Category::Unknown, Evidence::Nothing)
}

/// The lower-cased message and body text, built only when a rule needs to read it.
struct Hay<'a> {
    f: &'a Failure,
    provider: Option<&'a body::ProviderError<'a>>,
    text: std::cell::OnceCell<String>,
}

impl<'a> Hay<'a> {
    fn new(f: &'a Failure, provider: Option<&'a body::ProviderError<'a>>) -> Self {
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

fn haystack(f: &Failure, provider: Option<&body::ProviderError<'_>>) -> String {
    let mut hay = text::lower_bounded(&f.message, MAX_SCAN);
    let extra = match provider {
        Some(p) => p.message.as_deref(),
        None => f.body.as_deref(),
    };
    if let Some(extra) = extra {
        hay.push('\n');
        hay.push_str(&text::lower_bounded(extra, MAX_SCAN));
    }
    if let Some(p) = provider {
        for code in &p.codes {
            hay.push('\n');
            hay.push_str(code);
        }
    }
    hay
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
fn specific_code_category(p: &body::ProviderError<'_>) -> Option<Category> {
    p.codes
        .iter()
        .find_map(|code| tables::code_row(code).filter(|r| !r.generic))
        .map(|r| r.category)
}

/// The most specific category named by the provider's codes.
fn code_category(p: &body::ProviderError<'_>) -> Option<Category> {
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

fn refine_status(status: u16, provider: Option<&body::ProviderError<'_>>, hay: &Hay) -> Category {
    let base = status_category(status);
    let code = provider.and_then(code_category);
    if base.is_transient() {
        // A transient status may be sharpened (500 + overloaded_error) or shown to be billing
        // (OpenAI's 429 `insufficient_quota`), never turned into another permanent error.
        // The provider's own code beats wording: Gemini's per-minute RESOURCE_EXHAUSTED says
        // "check your plan and billing details" yet clears in a minute.
        let specific = provider.and_then(specific_code_category);
        if specific == Some(Category::PaymentRequired)
            || (specific.is_none()
                && text::permanent().first(hay.get()) == Some(Category::PaymentRequired))
        {
            return Category::PaymentRequired;
        }
        // Only a generic 5xx is sharpened (500 + overloaded_error, 504 + timeout_error);
        // a 429 stays a rate limit whatever the code's family.
        let sharper = match code {
            Some(c) if c.is_transient() && base == Category::ServerError => c,
            _ => base,
        };
        if sharper == Category::ServerError && text::contains_phrase(hay.get(), "overloaded") {
            return Category::Overloaded;
        }
        return sharper;
    }
    // A permanent status: a specific provider code, then a message phrase, may sharpen it.
    // Throttling is the one transient meaning a 4xx may carry (AWS JSON protocol: 400 +
    // ThrottlingException).
    let specific = provider
        .and_then(specific_code_category)
        .filter(|c| !c.is_transient() || *c == Category::RateLimited);
    refine_by_phrase(specific.unwrap_or(base), text::permanent().first(hay.get()))
}

fn refine_by_phrase(base: Category, phrase: Option<Category>) -> Category {
    match phrase {
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

/// SSE `error` event inside a stream: its `error.type` decides (Forgeflare R1).
fn sse_category(provider: Option<&body::ProviderError<'_>>) -> Option<Category> {
    let p = provider.filter(|p| p.has_error)?;
    if p.codes.iter().any(|c| c == "invalid_request_error") {
        return Some(Category::InvalidResponse);
    }
    match code_category(p) {
        Some(c) if !c.is_transient() && c != Category::BadRequest => Some(c),
        // overloaded_error, api_error, rate_limit_error, unknown or absent types.
        _ => Some(Category::StreamInterrupted),
    }
}

fn normalized(name: &str) -> &str {
    name.strip_prefix("builtins.").unwrap_or(name)
}

/// A word-at-a-time multiplicative hash (FxHash-like): class names are short and trusted (our
/// own table), so a DoS-resistant hash only costs, and byte-at-a-time FNV cost ~4 instructions a
/// byte over a five-name chain.
#[derive(Default)]
struct ClassHasher(u64);

impl ClassHasher {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl std::hash::Hasher for ClassHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut tail = [0u8; 8];
            tail[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(tail) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.mix(u64::from(b));
    }
}

/// The class table as a map (exact names) plus the few module-agnostic suffix rows.
struct ClassIndex {
    exact: std::collections::HashMap<
        &'static str,
        ClassRule,
        std::hash::BuildHasherDefault<ClassHasher>,
    >,
    suffixes: Vec<(&'static str, ClassRule)>,
}

fn class_index() -> &'static ClassIndex {
    static I: std::sync::OnceLock<ClassIndex> = std::sync::OnceLock::new();
    I.get_or_init(|| {
        let mut exact = std::collections::HashMap::default();
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
    // `.Name` rows match `Name` in any module: the name ends with it after a dot (or is it).
    idx.suffixes
        .iter()
        .find(|(s, _)| {
            name.len() >= s.len()
                && name.ends_with(s)
                && (name.len() == s.len() || name.as_bytes()[name.len() - s.len() - 1] == b'.')
        })
        .map(|(_, r)| *r)
}

/// What the class chain says, read in one pass.
struct ClassFacts {
    /// The most specific known class's category (and whether it needs the TLS/DNS refinement).
    category: Option<(Category, bool)>,
    /// An LLM client's API-error base class is in the chain.
    api_error: bool,
}

impl ClassFacts {
    fn of(chain: &[String]) -> Self {
        let mut facts = ClassFacts {
            category: None,
            api_error: false,
        };
        for name in chain {
            // Nothing later in the chain can change what is known.
            if facts.category.is_some() && facts.api_error {
                break;
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

/// TLS and DNS errors: a bad certificate or an unknown host is a set-up mistake; anything else
/// (a reset handshake, a temporary resolver failure) is a transient connection failure.
fn network_or_configuration(hay: &str) -> Category {
    const CONFIG: &[&str] = &[
        "certificate",
        "name or service not known",
        "nodename nor servname provided",
        "no address associated with hostname",
        "hostname mismatch",
        "wrong version number",
    ];
    if CONFIG.iter().any(|p| text::contains_phrase(hay, p)) {
        Category::Configuration
    } else {
        Category::Connection
    }
}

fn message_category(f: &Failure, hay: &str) -> Option<Category> {
    if hay.is_empty() {
        return None;
    }
    if let Some(c) = text::permanent().first(hay) {
        return Some(c);
    }
    if let Some(status) = text::status_in_text(hay, tables::STATUS_INTRODUCERS) {
        return Some(refine_status(status, None, &Hay::new(f, None)));
    }
    text::transient().first(hay)
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
        for stranger in [
            "",
            "Exception",
            "openai.APIErrorX",
            "penai.APIError",
            "a.b.c",
        ] {
            assert_eq!(class_rule(stranger), None, "{stranger}");
        }
    }
}
